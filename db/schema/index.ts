export * from './partners';
export * from './credentials';
export * from './allowlist';
export * from './quotes';
export * from './idempotency';
export * from './rate-limit';
export * from './operators';
export * from './audit-log';
