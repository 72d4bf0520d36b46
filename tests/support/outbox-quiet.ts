/**
 * For tests that count the statements a request runs: the outbox's worker (decision 027) looks
 * just after a write wakes it and again 250 ms later, and its statements are not the request's.
 * `saw` is fed every statement; `quiet` waits until none on the outbox ran for a while.
 */
export function outboxWatch(quietMs = 400) {
  let seenAt = 0;
  return {
    saw(sql: string) {
      if (/"(outbox|mail_digests)"/.test(sql)) seenAt = Date.now();
    },
    async quiet() {
      for (let still = Date.now() - seenAt; still < quietMs; still = Date.now() - seenAt) {
        await new Promise((resolve) => setTimeout(resolve, quietMs - still));
      }
    },
  };
}
