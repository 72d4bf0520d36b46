import { z } from "zod";

// Every schema of the contract is built with this `z`. In the browser the pages' CSP forbids
// eval: zod must not even probe for it (the probe is reported as a CSP violation), and it probes
// when a schema is built, so the setting comes with the import, before any schema (decision 031,
// "The first load"). The server keeps zod's compiled fast path.
if ("document" in globalThis) z.config({ jitless: true });

export { z };
