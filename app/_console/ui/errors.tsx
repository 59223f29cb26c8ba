'use client';

import type { CombinedError } from 'urql';

export interface ApiError {
  message: string;
  code?: string;
  /** The argument or field the error is about (`cidr`, `first`...), to show it beside that control. */
  param?: string;
}

/** The errors of a query or mutation, as the operator should read them. */
export function apiErrors(error: CombinedError | undefined): ApiError[] {
  if (!error) return [];
  if (error.graphQLErrors.length > 0) {
    return error.graphQLErrors.map((e) => ({
      message: e.message,
      code: e.extensions?.code as string | undefined,
      param: e.extensions?.param as string | undefined,
    }));
  }
  return [{ message: error.networkError ? 'The service did not answer; try again.' : error.message }];
}

/** The message about `param`, for the control that caused it. */
export function errorFor(errors: ApiError[], param: string): string | undefined {
  return errors.find((e) => e.param === param || e.param?.startsWith(`${param}.`))?.message;
}

/** Errors not tied to one control, shown where the action was taken. */
export function ErrorList({ errors, exceptParams = [] }: { errors: ApiError[]; exceptParams?: string[] }) {
  const shown = errors.filter((e) => !e.param || !exceptParams.includes(e.param));
  if (shown.length === 0) return null;
  return (
    <div role="alert" className="error">
      {shown.map((e, i) => (
        <p key={i}>{e.message}</p>
      ))}
    </div>
  );
}
