'use client';

import { useId } from 'react';
import { zoneOf } from './format';
import { timeInputFormat, toTimeInput } from './time-input';

/**
 * A time typed in the operator's order and zone (time-input.ts), the format and the zone named beneath it.
 * The hint is the field's description, not part of its label: hidden from the label's text, it is still read
 * through aria-describedby, after the error when there is one. `data-time` marks the control for FilterForm.
 */
export function TimeInput({
  name,
  defaultValue,
  invalid,
  errorId,
}: {
  name: string;
  /** An ISO time. */
  defaultValue?: string;
  invalid?: boolean;
  errorId?: string;
}) {
  const hintId = useId();
  const format = timeInputFormat();
  return (
    <>
      <input
        type="text"
        name={name}
        data-time=""
        defaultValue={toTimeInput(defaultValue)}
        placeholder={format}
        size={18}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={Boolean(invalid)}
        aria-describedby={[errorId, hintId].filter(Boolean).join(' ')}
      />
      <span id={hintId} className="hint" aria-hidden="true">
        {format} · {zoneOf()} time
      </span>
    </>
  );
}

/** Whether a control is a TimeInput's. */
export function isTimeControl(control: unknown): control is HTMLInputElement {
  return control instanceof HTMLInputElement && control.dataset.time !== undefined;
}

/** What a time field says when its text is not a time. */
export function notATime(): string {
  return `Type a date and time as ${timeInputFormat()}.`;
}
