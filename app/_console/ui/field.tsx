import type { ReactNode } from 'react';

/**
 * A labelled control with its error beneath it: the label wraps the control, so the label names it, and
 * `errorId` (given to the control's aria-describedby) lets a screen reader read the error with it.
 */
export function Field({ label, error, errorId, children }: { label: ReactNode; error?: string; errorId?: string; children: ReactNode }) {
  return (
    <label>
      {label}
      {children}
      {error && (
        <span className="error" id={errorId}>
          {error}
        </span>
      )}
    </label>
  );
}

/** A select's choices: values shown as they are, or [value, text] pairs. */
export function Options({ values }: { values: readonly (string | readonly [string, string])[] }) {
  return values.map((o) => {
    const [value, text] = typeof o === 'string' ? [o, o] : o;
    return (
      <option key={value} value={value}>
        {text}
      </option>
    );
  });
}
