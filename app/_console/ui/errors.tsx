'use client';

import type { FieldValues, UseFormReturn } from 'react-hook-form';
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

/**
 * The message about the first of `params` an error names, for the control that caused it: a control the
 * server may know by several names (a filter's `filter.since` or `since`) lists them all.
 */
export function errorFor(errors: ApiError[], ...params: string[]): string | undefined {
  for (const param of params) {
    const found = errors.find((e) => e.param === param || e.param?.startsWith(`${param}.`));
    if (found) return found.message;
  }
  return undefined;
}

/**
 * A react-hook-form's message for one of its fields: the browser's own check first, else what the server said
 * about the same field (forms whose fields are named as the mutation's arguments).
 */
export function fieldErrors<F extends FieldValues>(form: UseFormReturn<F>, errors: ApiError[]) {
  return (name: keyof F & string): string | undefined => {
    const message = form.formState.errors[name]?.message;
    return (typeof message === 'string' ? message : undefined) ?? errorFor(errors, name);
  };
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
