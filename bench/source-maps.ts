import { readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

// tsx runs our TypeScript as whitespace-minified JavaScript, so a CPU profile places every function of
// ours on line 1. tsx keeps each transform, with its source map, in <tmpdir>/tsx-<uid>/; this maps a
// profile position back to the TypeScript line through those maps. Best effort: the newest transform
// of a file is assumed to be the one that ran; without one, the caller falls back to the column.

interface Transform {
  code: string;
  lines: Segment[][];
}
/** [generatedColumn, originalLine] */
type Segment = [number, number];

let index: Map<string, string> | undefined;
const loaded = new Map<string, Transform | null>();

function cacheIndex(): Map<string, string> {
  if (index) return index;
  index = new Map();
  const dir = path.join(tmpdir(), `tsx-${userInfo().uid}`);
  let files: string[] = [];
  try {
    files = readdirSync(dir);
  } catch {
    return index;
  }
  const newest = new Map<string, number>();
  for (const f of files) {
    const full = path.join(dir, f);
    try {
      const text = readFileSync(full, 'utf8');
      const m = /"sources":\["([^"]+)"\]/.exec(text);
      if (!m) continue;
      const mtime = statSync(full).mtimeMs;
      if ((newest.get(m[1]!) ?? -1) < mtime) {
        newest.set(m[1]!, mtime);
        index.set(m[1]!, full);
      }
    } catch {
      // unreadable entry: skip
    }
  }
  return index;
}

function load(source: string): Transform | null {
  if (loaded.has(source)) return loaded.get(source)!;
  let result: Transform | null = null;
  const file = cacheIndex().get(source);
  if (file) {
    try {
      const entry = JSON.parse(readFileSync(file, 'utf8')) as { code: string; map?: { mappings: string } };
      if (entry.map) result = { code: entry.code, lines: decodeMappings(entry.map.mappings) };
    } catch {
      result = null;
    }
  }
  loaded.set(source, result);
  return result;
}

/** The 1-based TypeScript line of a 0-based generated position, or undefined when unknown or implausible. */
export function originalLine(source: string, functionName: string, line: number, column: number): number | undefined {
  const t = load(source);
  const segments = t?.lines[line];
  if (!t || !segments) return undefined;
  // Sanity check that this transform is the code that ran: a named function's name is near its position.
  const generatedLine = t.code.split('\n')[line] ?? '';
  if (functionName && !functionName.startsWith('(') && !generatedLine.slice(Math.max(0, column - 80), column + 80).includes(functionName))
    return undefined;
  let best: Segment | undefined;
  for (const s of segments) {
    if (s[0] <= column) best = s;
    else break;
  }
  return best ? best[1] + 1 : undefined;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Source map v3 "mappings" → per generated line, [generatedColumn, originalLine] sorted by column. */
function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let originalLineState = 0;
  for (const lineText of mappings.split(';')) {
    const segments: Segment[] = [];
    let column = 0;
    for (const segText of lineText.split(',')) {
      if (!segText) continue;
      const values = decodeVlq(segText);
      column += values[0] ?? 0;
      if (values.length >= 4) {
        originalLineState += values[2]!;
        segments.push([column, originalLineState]);
      }
    }
    segments.sort((a, b) => a[0] - b[0]);
    lines.push(segments);
  }
  return lines;
}

function decodeVlq(text: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of text) {
    const digit = B64.indexOf(ch);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}
