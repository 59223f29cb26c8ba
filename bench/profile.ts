import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './processes';
import { originalLine } from './source-maps';
import { table } from './table';

// Reads V8 .cpuprofile files (node --cpu-prof) and breaks the time of one load window down per
// request: by function (self time), by package or area (self time), and by function of our own code
// path (inclusive time: the function and everything it called synchronously).

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The largest profile in dir: the service's, beside those of any process it started with the same flags. */
export function largestProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

export interface ProfileBreakdown {
  /** Sampled milliseconds inside the window, idle included. */
  windowMs: number;
  busyMs: number;
  requests: number;
  /** Busy microseconds per request. */
  busyUsPerRequest: number;
  selfByFunction: Map<string, number>;
  selfByArea: Map<string, number>;
  /** Inclusive time of frames in our code and the HTTP adapter, by function. */
  inclusiveByFunction: Map<string, number>;
  /** Inclusive time by area: a sample counts once for every area on its stack. */
  inclusiveByArea: Map<string, number>;
}

const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

/** root: the checkout the profiled process ran from (its files are "ours"). */
export function analyseProfile(
  profile: CpuProfile,
  window: { fromUs: number; toUs: number },
  requests: number,
  root = REPO_ROOT,
): ProfileBreakdown {
  const label = (frame: CallFrame) => frameLabel(frame, root);
  const area = (frame: CallFrame) => frameArea(frame, root);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const selfByFunction = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  const inclusiveByFunction = new Map<string, number>();
  const inclusiveByArea = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

  let t = profile.startTime;
  let windowUs = 0;
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < window.fromUs || t > window.toUs) continue;
    // The sample stands for the time until the next one.
    const weight = profile.timeDeltas[i + 1] ?? 0;
    const leaf = byId.get(profile.samples[i]!)!;
    windowUs += weight;
    if (leaf.callFrame.functionName === '(idle)') continue;
    busyUs += weight;
    add(selfByFunction, label(leaf.callFrame), weight);
    add(selfByArea, area(leaf.callFrame), weight);
    const seenFunctions = new Set<string>();
    const seenAreas = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '(root)') break;
      const a = area(frame);
      if (!seenAreas.has(a)) {
        seenAreas.add(a);
        add(inclusiveByArea, a, weight);
      }
      if (a.startsWith('ours:') || a === '@hono/node-server') {
        const l = label(frame);
        if (!seenFunctions.has(l)) {
          seenFunctions.add(l);
          add(inclusiveByFunction, l, weight);
        }
      }
    }
  }
  return {
    windowMs: windowUs / 1000,
    busyMs: busyUs / 1000,
    requests,
    busyUsPerRequest: requests > 0 ? busyUs / requests : NaN,
    selfByFunction,
    selfByArea,
    inclusiveByFunction,
    inclusiveByArea,
  };
}

function shortUrl(url: string, root: string): string {
  let u = url.replace(/^file:\/\//, '');
  if (u.startsWith(root + '/')) u = u.slice(root.length + 1);
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) u = u.slice(nm + 'node_modules/'.length);
  return u.replace(/^node:internal\//, 'node:');
}

function frameLabel(frame: CallFrame, root: string): string {
  if (SPECIAL.has(frame.functionName)) return frame.functionName;
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return `${name} [native]`;
  const file = frame.url.replace(/^file:\/\//, '');
  if (file.startsWith(root + '/') && !file.includes('/node_modules/') && /\.[mc]?tsx?$/.test(file)) {
    // Ours, run through tsx: map back to the TypeScript line when the transform is at hand.
    const line = originalLine(file, frame.functionName, frame.lineNumber, frame.columnNumber);
    return `${name} ${shortUrl(frame.url, root)}${line ? `:${line}` : `@${frame.lineNumber + 1}:${frame.columnNumber + 1}`}`;
  }
  return `${name} ${shortUrl(frame.url, root)}:${frame.lineNumber + 1}`;
}

/** Which package, Node subsystem or directory of ours a frame belongs to. */
function frameArea(frame: CallFrame, root: string): string {
  if (SPECIAL.has(frame.functionName)) return frame.functionName;
  const url = frame.url.replace(/^file:\/\//, '');
  if (!url) return 'V8 builtins/native (JSON, RegExp, crypto bindings...)';
  if (url.startsWith('node:')) {
    if (url.includes('deps/undici')) return 'node: undici (Request/Response/Headers)';
    if (/webstreams|streams\//.test(url)) return 'node: streams';
    if (/_http_|internal\/http|http_parser/.test(url)) return 'node: http';
    if (/net|stream_base|dns|tcp/.test(url)) return 'node: net';
    if (/crypto/.test(url)) return 'node: crypto';
    if (/url/.test(url)) return 'node: url';
    if (/timers|process\/task_queues|async_hooks/.test(url)) return 'node: timers/tasks';
    return 'node: other';
  }
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    const pkg = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    if (
      [
        'pino',
        'sonic-boom',
        'fast-redact',
        'pino-std-serializers',
        'thread-stream',
        'quick-format-unescaped',
        'fast-safe-stringify',
        'safe-stable-stringify',
        'atomic-sleep',
        'on-exit-leak-free',
      ].includes(pkg)
    )
      return 'pino (logging)';
    return pkg;
  }
  if (url.startsWith(root + '/')) {
    const rel = url.slice(root.length + 1);
    const parts = rel.split('/');
    return `ours: ${parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  return 'other';
}

export function formatBreakdown(title: string, b: ProfileBreakdown, top = 25): string {
  const per = (us: number) => (b.requests > 0 ? (us / b.requests).toFixed(1) : '-');
  const share = (us: number) => `${((100 * us) / (b.busyMs * 1000)).toFixed(1)} %`;
  const rows = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, n)
      .map(([k, us]) => [per(us), share(us), k]);
  const head = ['us/req', 'of busy', ''];
  return [
    `${title}: ${b.requests.toLocaleString('en-US')} requests in ${(b.windowMs / 1000).toFixed(1)} s; main thread busy ${(b.busyMs / 1000).toFixed(1)} s` +
      ` = ${b.busyUsPerRequest.toFixed(0)} us of main-thread time per request (${((100 * b.busyMs) / b.windowMs).toFixed(0)} % busy)`,
    '',
    'Self time by area:',
    table(head, rows(b.selfByArea, 30), { indent: '  ' }),
    '',
    'Inclusive time by area (a sample counts for every area on its stack):',
    table(head, rows(b.inclusiveByArea, 30), { indent: '  ' }),
    '',
    `Top ${top} functions by self time:`,
    table(head, rows(b.selfByFunction, top), { indent: '  ' }),
    '',
    `Our code and the HTTP adapter, by inclusive time (synchronous stacks only; awaits split them):`,
    table(head, rows(b.inclusiveByFunction, top), { indent: '  ' }),
  ].join('\n');
}
