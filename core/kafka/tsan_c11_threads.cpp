// Only in the Tsan build type (core/kafka/CMakeLists.txt): librdkafka runs its threads with
// C11 <threads.h> (thrd_create, mtx_lock, cnd_wait, call_once). glibc implements those by
// calling its pthread internals directly, past ThreadSanitizer's pthread interceptors, and
// GCC 12's libtsan has no C11 interceptors of its own. TSan then never learns of librdkafka's
// threads (they crash in TSan's allocator on their first malloc) nor of its locks (every
// access they guard would look like a race). These definitions, in the executable, take
// precedence over glibc's and do what glibc does, through the pthread functions TSan sees:
// mtx_t, cnd_t and once_flag are glibc's pthread_mutex_t, pthread_cond_t and pthread_once_t.
#if defined(__SANITIZE_THREAD__)

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <new>

#include <pthread.h>
#include <threads.h>

namespace {

int to_thrd(int pthread_result) {
  switch (pthread_result) {
    case 0:
      return thrd_success;
    case ENOMEM:
      return thrd_nomem;
    case ETIMEDOUT:
      return thrd_timedout;
    case EBUSY:
      return thrd_busy;
    default:
      return thrd_error;
  }
}

pthread_mutex_t* as_pthread(mtx_t* m) { return reinterpret_cast<pthread_mutex_t*>(m); }
pthread_cond_t* as_pthread(cnd_t* c) { return reinterpret_cast<pthread_cond_t*>(c); }

struct c11_start {
  thrd_start_t func;
  void* arg;
};

void* run_c11_thread(void* p) {
  const c11_start start = *static_cast<c11_start*>(p);
  delete static_cast<c11_start*>(p);
  // glibc hands a C11 thread's int result to thrd_join the same way.
  return reinterpret_cast<void*>(static_cast<std::intptr_t>(start.func(start.arg)));
}

}  // namespace

extern "C" {

int thrd_create(thrd_t* thr, thrd_start_t func, void* arg) {
  auto* start = new (std::nothrow) c11_start{func, arg};
  if (start == nullptr) {
    return thrd_nomem;
  }
  const int rc = pthread_create(thr, nullptr, run_c11_thread, start);
  if (rc != 0) {
    delete start;
  }
  return to_thrd(rc);
}

int thrd_join(thrd_t thr, int* res) {
  void* result = nullptr;
  const int rc = pthread_join(thr, &result);
  if (rc == 0 && res != nullptr) {
    *res = static_cast<int>(reinterpret_cast<std::intptr_t>(result));
  }
  return to_thrd(rc);
}

int mtx_init(mtx_t* m, int type) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  if ((type & mtx_recursive) != 0) {
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  }
  const int rc = pthread_mutex_init(as_pthread(m), &attr);
  pthread_mutexattr_destroy(&attr);
  return to_thrd(rc);
}

int mtx_lock(mtx_t* m) { return to_thrd(pthread_mutex_lock(as_pthread(m))); }
int mtx_trylock(mtx_t* m) { return to_thrd(pthread_mutex_trylock(as_pthread(m))); }
int mtx_timedlock(mtx_t* __restrict m, const struct timespec* __restrict until) {
  return to_thrd(pthread_mutex_timedlock(as_pthread(m), until));
}
int mtx_unlock(mtx_t* m) { return to_thrd(pthread_mutex_unlock(as_pthread(m))); }
void mtx_destroy(mtx_t* m) { pthread_mutex_destroy(as_pthread(m)); }

int cnd_init(cnd_t* c) { return to_thrd(pthread_cond_init(as_pthread(c), nullptr)); }
int cnd_signal(cnd_t* c) { return to_thrd(pthread_cond_signal(as_pthread(c))); }
int cnd_broadcast(cnd_t* c) { return to_thrd(pthread_cond_broadcast(as_pthread(c))); }
int cnd_wait(cnd_t* c, mtx_t* m) {
  return to_thrd(pthread_cond_wait(as_pthread(c), as_pthread(m)));
}
int cnd_timedwait(cnd_t* __restrict c, mtx_t* __restrict m,
                  const struct timespec* __restrict until) {
  return to_thrd(pthread_cond_timedwait(as_pthread(c), as_pthread(m), until));
}
void cnd_destroy(cnd_t* c) { pthread_cond_destroy(as_pthread(c)); }

void call_once(once_flag* flag, void (*func)()) {
  pthread_once(reinterpret_cast<pthread_once_t*>(flag), func);
}

}  // extern "C"

#endif  // defined(__SANITIZE_THREAD__)
