// What a run must do per small file, and nothing else, in C: the floor any implementation
// of `xferbatch run` meets on this machine (bench/run-floor).
//
// Per file, as a run guarantees: the body goes to `<file>.xferpart` (created exclusively,
// flock'ed), is hashed (SHA-256), a journal line records the file, and the partial is
// renamed into place. On libcurl's multi interface, one connection per slot, `SLOTS`
// transfers at once, a fresh easy handle per file, as curl's tool does.
//
// usage: floor PORT N OUTDIR [MODE]
//   MODE "":         one thread, the hash computed as the body is written (as a run does)
//   MODE "nosha":    one thread, no hash
//   MODE "finisher": a second thread finishes files (hash read back from the page cache,
//                    journal line, rename, close); a slot is free again as soon as its
//                    transfer ends, and the transfer thread never waits for the finisher
// Files are fetched from http://127.0.0.1:PORT/f00000.bin ... (bench/lib/small-files.sh).
#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

enum { SLOTS = 8, QUEUE = 4096 };
static int hashing = 1, finisher_thread = 0, journal = -1;

struct file {
  int fd;
  long long written;
  EVP_MD_CTX *sha;
  char partial[300], final[280];
};

static void fail(const char *what) { perror(what); exit(1); }

static size_t on_body(char *data, size_t size, size_t count, void *context) {
  struct file *f = context;
  size_t length = size * count;
  if (pwrite(f->fd, data, length, f->written) != (ssize_t)length) return 0;
  f->written += length;
  if (hashing && !finisher_thread) EVP_DigestUpdate(f->sha, data, length);
  return length;
}

// Hash (unless done as written), journal line, rename into place, close.
static void complete(struct file *f) {
  char hex[65] = "";
  if (hashing) {
    if (finisher_thread) {
      char buffer[65536];
      ssize_t got;
      for (long long at = 0; (got = pread(f->fd, buffer, sizeof buffer, at)) > 0; at += got)
        EVP_DigestUpdate(f->sha, buffer, got);
    }
    unsigned char digest[32];
    EVP_DigestFinal_ex(f->sha, digest, NULL);
    for (int k = 0; k < 32; k++) sprintf(hex + 2 * k, "%02x", digest[k]);
  }
  if (f->sha) EVP_MD_CTX_free(f->sha);
  char line[600];
  int n = snprintf(line, sizeof line, "{\"path\":\"%s\",\"bytes\":%lld,\"sha256\":\"%s\"}\n", f->final, f->written, hex);
  if (write(journal, line, n) != n) fail("journal");
  if (rename(f->partial, f->final) != 0) fail("rename");
  close(f->fd);
  free(f);
}

// The finisher: a queue under a mutex, drained in batches.
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static struct file *queue[QUEUE];
static int head, tail, closed;

static void *finish_files(void *unused) {
  (void)unused;
  struct file *batch[QUEUE];
  for (;;) {
    pthread_mutex_lock(&lock);
    while (head == tail && !closed) pthread_cond_wait(&more, &lock);
    int n = 0;
    while (head != tail) { batch[n++] = queue[head]; head = (head + 1) % QUEUE; }
    int done = closed && n == 0;
    pthread_mutex_unlock(&lock);
    if (done) return NULL;
    for (int i = 0; i < n; i++) complete(batch[i]);
  }
}

static void hand_over(struct file *f) {
  pthread_mutex_lock(&lock);
  if ((tail + 1) % QUEUE == head) { fprintf(stderr, "finisher queue full\n"); exit(1); }
  queue[tail] = f;
  tail = (tail + 1) % QUEUE;
  pthread_cond_signal(&more);
  pthread_mutex_unlock(&lock);
}

static void start(CURLM *multi, int port, int i, const char *folder) {
  struct file *f = calloc(1, sizeof *f);
  snprintf(f->final, sizeof f->final, "%s/f%05d.bin", folder, i);
  snprintf(f->partial, sizeof f->partial, "%s.xferpart", f->final);
  f->fd = open(f->partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (f->fd < 0) fail("open");
  if (flock(f->fd, LOCK_EX | LOCK_NB) != 0) fail("flock");
  if (hashing) {
    f->sha = EVP_MD_CTX_new();
    EVP_DigestInit_ex(f->sha, EVP_sha256(), NULL);
  }
  char url[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/f%05d.bin", port, i);
  CURL *easy = curl_easy_init();
  curl_easy_setopt(easy, CURLOPT_URL, url);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, f);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, f);
  if (curl_multi_add_handle(multi, easy) != CURLM_OK) { fprintf(stderr, "curl_multi_add_handle failed\n"); exit(1); }
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: floor PORT N OUTDIR [nosha|finisher]\n"); return 2; }
  int port = atoi(argv[1]), count = atoi(argv[2]);
  const char *folder = argv[3], *mode = argc > 4 ? argv[4] : "";
  hashing = strcmp(mode, "nosha") != 0;
  finisher_thread = strcmp(mode, "finisher") == 0;
  char path[300];
  snprintf(path, sizeof path, "%s/.journal", folder);
  if ((journal = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) fail("journal");
  pthread_t finisher;
  if (finisher_thread && pthread_create(&finisher, NULL, finish_files, NULL) != 0) fail("pthread_create");
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURLM *multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 64L);  // keep the slots' connections, as a run does
  int next = 0, live = 0;
  for (; next < count && live < SLOTS; next++, live++) start(multi, port, next, folder);
  while (live > 0) {
    int running;
    curl_multi_perform(multi, &running);
    CURLMsg *message;
    int left;
    while ((message = curl_multi_info_read(multi, &left))) {
      if (message->msg != CURLMSG_DONE) continue;
      if (message->data.result != CURLE_OK) { fprintf(stderr, "%s\n", curl_easy_strerror(message->data.result)); return 1; }
      struct file *f;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&f);
      curl_multi_remove_handle(multi, message->easy_handle);
      curl_easy_cleanup(message->easy_handle);
      if (finisher_thread) hand_over(f); else complete(f);
      live--;
      if (next < count) { start(multi, port, next++, folder); live++; }
    }
    if (live > 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
  }
  curl_multi_cleanup(multi);
  if (finisher_thread) {
    pthread_mutex_lock(&lock);
    closed = 1;
    pthread_cond_signal(&more);
    pthread_mutex_unlock(&lock);
    pthread_join(finisher, NULL);
  }
  return 0;
}
