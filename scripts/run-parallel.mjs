// Runs npm scripts side by side and fails if any fails: `npm test`'s static checks (lint, format,
// typecheck) are each one single-threaded process, so on CI's 2 cores two of them at once save the
// shorter one's time. Each script's output is printed whole when it ends, so logs do not interleave.
import { spawn } from 'node:child_process';
import process from 'node:process';

const scripts = process.argv.slice(2);
const results = await Promise.all(
  scripts.map(
    (name) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (c) => (output += c));
        child.stderr.on('data', (c) => (output += c));
        child.on('close', (code) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          process.stdout.write(`\n> ${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s\n${output}`);
          resolve(code === 0);
        });
      }),
  ),
);
process.exit(results.every(Boolean) ? 0 : 1);
