import { z } from 'zod';

// Zod 4 compiles object parsers with `new Function` where it may, and probes for it on the first parse:
// under the console's policy (no eval, server/http/console-security.ts) the probe is a reported violation
// on every page with a form. Interpreted parsing is fast enough for a form.
z.config({ jitless: true });
