import { ensureLocalCa, type LocalCa } from '../../server/boot/local-ca';

export type TestCa = LocalCa;

/** The run's throwaway certificate authority, for real HTTPS receivers on loopback. */
export function createTestCa(dir: string): TestCa {
  return ensureLocalCa(dir, { name: 'Partner Delivery Test CA', days: 2 });
}
