"""Validate JSON files against a JSON Schema (2020-12) with Python's jsonschema.

Usage:
  check_schema.py SCHEMA FILE...                  every FILE must be valid
  check_schema.py SCHEMA --expect-invalid FILE... every FILE must be invalid
  check_schema.py --meta SCHEMA...                each SCHEMA must be a valid schema
  check_schema.py SCHEMA --lines FILE...          every line of every FILE must be valid (JSON Lines)
Exit 0 when every expectation holds; prints one line per file.
"""
import json
import sys

import jsonschema


def main(argv):
    if argv[0] == "--meta":
        for path in argv[1:]:
            jsonschema.Draft202012Validator.check_schema(json.load(open(path, encoding="utf-8")))
            print(f"{path}: valid schema")
        return 0
    schema = json.load(open(argv[0], encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    if argv[1] == "--lines":
        ok = True
        for path in argv[2:]:
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                errors = [e.message for e in validator.iter_errors(json.loads(line))]
                if errors:
                    print(f"{path}:{number}: " + "; ".join(errors[:3]))
                    ok = False
        print("checked" if ok else "invalid lines found")
        return 0 if ok else 1
    expect_invalid = argv[1] == "--expect-invalid"
    files = argv[2:] if expect_invalid else argv[1:]
    ok = True
    for path in files:
        try:
            document = json.load(open(path, encoding="utf-8"))
            errors = [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}" for e in validator.iter_errors(document)]
        except (ValueError, UnicodeDecodeError) as e:
            errors = [f"not JSON: {e}"]
        if expect_invalid and not errors:
            print(f"{path}: accepted, but it is invalid")
            ok = False
        elif not expect_invalid and errors:
            print(f"{path}: " + "; ".join(errors[:5]))
            ok = False
        else:
            print(f"{path}: {'rejected' if errors else 'valid'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
