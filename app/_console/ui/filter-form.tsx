'use client';

import { createContext, useContext, useState, type ReactNode } from 'react';
import type { ZodType } from 'zod';
import { ErrorList, errorFor, type ApiError } from './errors';
import { Field, Options } from './field';
import { fromTimeInput } from './time-input';
import { isTimeControl, notATime, TimeInput } from './time-field';
import { useUrlState } from './url-state';

/** The server's names for a filter's field: `filter.<name>` inside a list's filter argument, or the bare name. */
export const filterParams = (name: string): string[] => [`filter.${name}`, name];

interface Shared {
  values: Partial<Record<string, string>>;
  errors: ApiError[];
  /** The form's own findings (the page's schema), by field, until the next change or submit. */
  invalid: Record<string, string>;
  paramsOf: (name: string) => string[];
}

const FilterContext = createContext<Shared | null>(null);

interface FilterFormProps<K extends string> {
  label: string;
  /** The filter's keys: each names a control and a URL parameter (the page's cursor, `after`, is not one). */
  keys: readonly K[];
  /** The errors of the page's query. */
  errors: ApiError[];
  /** The submit button's text. */
  submit?: string;
  /** Given: a button with this text that clears every filter, shown while any is set. */
  clear?: string;
  /** Checked as typed (times as the ISO instants the operator typed) before anything is asked of the server. */
  schema?: ZodType;
  /** The params the server may name a field's error by; `filterParams` unless given. */
  paramsOf?: (name: string) => string[];
  children: ReactNode;
}

/**
 * A list page's filters: one uncontrolled form over the URL (where the page reads them, so a support link
 * opens the same view). On submit each key's control is read (text trimmed, blank as absent, a time field's
 * text as the ISO instant it names in the operator's zone) and, if every time field holds a time and the
 * page's `schema` (if any) accepts what was typed, written to the URL with the
 * cursor dropped: a new filter starts at the first page. Errors show beside their field (`FilterField`), the
 * form's own first, then the server's about the same param; the server's other errors in a list under the form.
 */
export function FilterForm<K extends string>(props: FilterFormProps<K>) {
  const [values, setUrl] = useUrlState<K | 'after'>([...props.keys, 'after']);
  const paramsOf = props.paramsOf ?? filterParams;
  return (
    <>
      {/* Keyed by the URL, so Back, Forward and a shared link show the filters that apply. */}
      <KeyedForm
        key={props.keys.map((k) => values[k] ?? '').join('|')}
        {...props}
        values={values}
        onApply={(next) => setUrl({ ...next, after: undefined })}
        paramsOf={paramsOf}
      />
      <ErrorList errors={props.errors} exceptParams={props.keys.flatMap(paramsOf)} />
    </>
  );
}

function KeyedForm<K extends string>({
  label,
  keys,
  values,
  errors,
  onApply,
  submit = 'Search',
  clear,
  schema,
  paramsOf,
  children,
}: FilterFormProps<K> & {
  values: Partial<Record<K, string>>;
  onApply: (next: Record<K, string | undefined>) => void;
  paramsOf: (name: string) => string[];
}) {
  const [invalid, setInvalid] = useState<Record<string, string> | null>(null);
  const isTime = (form: HTMLFormElement, k: K) => isTimeControl(form.elements.namedItem(k));
  const typed = (form: HTMLFormElement) => {
    const data = new FormData(form);
    return Object.fromEntries(
      keys.map((k) => {
        const text = (data.get(k) as string | null)?.trim() || undefined;
        return [k, isTime(form, k) ? fromTimeInput(text) : text];
      }),
    ) as Record<K, string | undefined>;
  };
  const check = (form: HTMLFormElement): Record<string, string> | null => {
    const found: Record<string, string> = {};
    const data = new FormData(form);
    for (const k of keys) {
      const text = (data.get(k) as string | null)?.trim();
      if (text && isTime(form, k) && !fromTimeInput(text)) found[k] = notATime();
    }
    if (schema) {
      const given = Object.fromEntries(Object.entries(typed(form)).filter(([k, v]) => v !== undefined && !found[k]));
      const result = schema.safeParse(given);
      if (!result.success) for (const issue of result.error.issues) found[String(issue.path[0])] ??= issue.message;
    }
    return Object.keys(found).length > 0 ? found : null;
  };
  return (
    <FilterContext.Provider value={{ values, errors, invalid: invalid ?? {}, paramsOf }}>
      <form
        className="inline filters"
        role="search"
        aria-label={label}
        noValidate
        onChange={(e) => {
          // Once the form has refused a value, it says at each change whether it still does.
          if (invalid) setInvalid(check(e.currentTarget));
        }}
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const found = check(form);
          setInvalid(found);
          if (found) {
            // The first refused field takes the focus, so a keyboard user lands on what to fix.
            const first = keys.find((k) => found[k]);
            if (first) (form.elements.namedItem(first) as HTMLElement | null)?.focus();
            return;
          }
          onApply(typed(form));
        }}
      >
        {children}
        <button type="submit" className="primary">
          {submit}
        </button>
        {clear && keys.some((k) => values[k]) && (
          <button type="button" onClick={() => onApply(Object.fromEntries(keys.map((k) => [k, undefined])) as Record<K, undefined>)}>
            {clear}
          </button>
        )}
      </form>
    </FilterContext.Provider>
  );
}

/**
 * One filter: a text (or search) input, a date and time (`type="datetime"`: typed in the operator's order and zone, see
 * TimeInput), or with `options` a select whose first choice is "any"; `suggestions` offers values to pick
 * while any text may still be typed.
 */
export function FilterField({
  name,
  label,
  type = 'text',
  options,
  suggestions,
}: {
  name: string;
  label: string;
  type?: 'text' | 'search' | 'datetime';
  /** Values, or [value, text] pairs. */
  options?: readonly (string | readonly [string, string])[];
  suggestions?: readonly string[];
}) {
  const shared = useContext(FilterContext);
  if (!shared) throw new Error('FilterField outside a FilterForm');
  const value = shared.values[name];
  const error = shared.invalid[name] ?? errorFor(shared.errors, ...shared.paramsOf(name));
  const errorId = error ? `filter-${name}-error` : undefined;
  const listId = suggestions ? `${name}-suggestions` : undefined;
  return (
    <>
      <Field label={label} error={error} errorId={errorId}>
        {options ? (
          <select name={name} defaultValue={value ?? ''} aria-invalid={Boolean(error)} aria-describedby={errorId}>
            <option value="">any</option>
            <Options values={options} />
          </select>
        ) : type === 'datetime' ? (
          <TimeInput name={name} defaultValue={value} invalid={Boolean(error)} errorId={errorId} />
        ) : (
          <input
            type={type}
            name={name}
            defaultValue={value ?? ''}
            list={listId}
            spellCheck={false}
            aria-invalid={Boolean(error)}
            aria-describedby={errorId}
          />
        )}
      </Field>
      {suggestions && (
        <datalist id={listId}>
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
    </>
  );
}
