// The replay thread's first module (server/boot/replay-thread.ts). A worker thread does not run the hooks its
// process loaded with `--import tsx` (Node 20), so it registers tsx itself before loading the TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./replay-thread-main.ts');
