'use client';

import * as AlertDialog from '@radix-ui/react-alert-dialog';
import type { ReactNode } from 'react';

/**
 * A button that asks before it acts (revoke a key, cancel a replay): Radix's alert dialog, focus-trapped and
 * keyboard-ready. `name`: the button's accessible name (and tooltip) when its short `label` does not say what
 * it acts on ("Revoke" in a row, named "Revoke ci_…"); it starts with the label, so speech input finds it.
 */
export function ConfirmButton({
  label,
  name,
  title,
  description,
  confirmLabel,
  onConfirm,
  disabled,
}: {
  label: string;
  name?: string;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger asChild>
        <button type="button" className="danger" disabled={disabled} aria-label={name} title={name}>
          {label}
        </button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog">
          <AlertDialog.Title>{title}</AlertDialog.Title>
          <AlertDialog.Description>{description}</AlertDialog.Description>
          <div className="dialog-actions">
            <AlertDialog.Cancel asChild>
              <button type="button">Keep it</button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <button type="button" className="danger" onClick={onConfirm}>
                {confirmLabel}
              </button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
