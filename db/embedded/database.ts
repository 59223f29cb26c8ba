const DB_NAME = 'delivery';
export const USER = 'postgres';

export function connectionUrl(password: string, port: number, db = DB_NAME): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
}

export async function ensureDatabase(url: string): Promise<void> {
  const { default: postgres } = await import('postgres');
  const admin = postgres(url.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => {} });
  try {
    const name = new URL(url).pathname.slice(1);
    const found = await admin`select 1 from pg_database where datname = ${name}`;
    if (found.length === 0) await admin.unsafe(`create database "${name}"`);
  } catch (e) {
    // Two processes starting at once on a new data directory may both try to create it.
    if (!(e instanceof Error && /already exists/.test(e.message))) throw e;
  } finally {
    await admin.end();
  }
}
