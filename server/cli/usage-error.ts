/** A command line the CLI refuses before touching the database (exit code 2). */
export class UsageError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The flag at fault, without its dashes. */
    readonly param?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
