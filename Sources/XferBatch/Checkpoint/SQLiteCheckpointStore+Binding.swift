import GRDB

extension SQLiteCheckpointStore {
    /// Binds one row's values to a prepared statement, in order, through GRDB's public
    /// `StatementBinding` (so without importing SQLite's C interface here).
    ///
    /// Why: `Statement.execute(arguments:)` turns each value into an existential, then a
    /// `DatabaseValue`, and binds them through one nested closure per value. For the 16
    /// columns of a checkpoint that was half the cost of a group commit (17 K of 34 K
    /// instructions a row in callgrind; SQLite's own step is 12 K).
    ///
    /// Failure: the first SQLite result code that is not `SQLITE_OK` is kept with its
    /// parameter's number, and `check()` throws it as a `DatabaseError` before the
    /// statement is stepped.
    struct RowBinder {
        private let statement: SQLiteStatement
        private var index: CInt = 1
        private var failure: (code: ResultCode, parameter: CInt)?

        /// Starts at the first parameter of `statement`, which must be reset and cleared
        /// (`Statement.setUncheckedArguments(_:)` with no arguments does both).
        init(_ statement: SQLiteStatement) {
            self.statement = statement
        }

        /// Binds the next parameter: `value`, or NULL when it is nil.
        mutating func add(_ value: (some StatementBinding)?) {
            let code = ResultCode(rawValue: value?.bind(to: statement, at: index) ?? DatabaseValue.null.bind(to: statement, at: index))
            if failure == nil, code != .SQLITE_OK { failure = (code, index) }
            index += 1
        }

        /// Throws the first failure, if a bind failed.
        func check() throws {
            if let failure { throw DatabaseError(resultCode: failure.code, message: "cannot bind parameter \(failure.parameter)") }
        }
    }
}
