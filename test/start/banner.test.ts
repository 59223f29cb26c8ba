import { afterEach, describe, expect, it, vi } from 'vitest';
import { printBanner } from '@/server/boot/banner';
import { loadEnv } from '@/server/config/env';
import type { RunningProcess } from '@/server/boot/start-process';

const demo = {
  operator: { email: 'admin@example.com', password: 'pw-0123456789' },
  partner: { id: '01PARTNER', name: 'Demo Partner' },
  sandbox: { client_id: 'ci_01CLIENT', api_key: 'sk_sandbox_KEY-_09' },
};

function banner(url: string): string {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  printBanner({ url, demo } as unknown as RunningProcess, loadEnv({ ...process.env, DATA_DIR: '.data', PUBLIC_BASE_URL: undefined }), 2345);
  return log.mock.calls.map((c) => String(c[0])).join('\n');
}

afterEach(() => vi.restoreAllMocks());

describe('start-up banner', () => {
  it('prints the credentials and a curl line for the first quote', () => {
    const text = banner('http://localhost:3000');
    expect(text).toContain('ready in 2.3 s at http://localhost:3000');
    expect(text).toContain('X-Client-ID: ci_01CLIENT');
    expect(text).toMatch(/X-API-Key:\s+sk_sandbox_KEY-_09/);
    expect(text).toContain("curl -sS -X POST http://localhost:3000/partner/quotes \\\n    -H 'Content-Type: application/json'");
  });

  it('does not double the slash when PUBLIC_BASE_URL ends in one', () => {
    const text = banner('https://api.example.com/');
    expect(text).toContain('https://api.example.com/partner/quotes');
    expect(text).toContain('https://api.example.com/partner/openapi.json');
    expect(text).not.toContain('//partner');
  });
});
