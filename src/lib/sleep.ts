// A pause that a signal cuts short. The listener goes when the pause ends either way: a job that
// pauses every few seconds on one long-lived signal (a lease's) would otherwise add a listener per
// pause for as long as it holds the lease — a leak Node reports as MaxListenersExceededWarning.
export const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
