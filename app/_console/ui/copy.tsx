'use client';

import { useState } from 'react';

/**
 * Copies `text` to the clipboard and says so. `compact`: a small icon button for a table cell, its name
 * (`label`: "Copy <the id>") for screen readers and as its tooltip.
 */
export function CopyButton({ text, label = 'Copy', compact = false }: { text: string; label?: string; compact?: boolean }) {
  const [copied, setCopied] = useState(false);
  const onClick = async () => {
    await navigator.clipboard?.writeText(text).catch(() => undefined);
    setCopied(true);
  };
  if (!compact) {
    return (
      <button type="button" onClick={onClick}>
        {copied ? 'Copied' : label}
      </button>
    );
  }
  const name = copied ? `Copied ${text}` : label;
  return (
    <button type="button" className="copy" aria-label={name} title={name} onClick={onClick}>
      {copied ? <span aria-hidden="true">✓</span> : <CopyIcon />}
    </button>
  );
}

function CopyIcon() {
  return (
    <svg aria-hidden="true" width="12" height="12" viewBox="0 0 12 12" fill="none" stroke="currentColor" strokeWidth="1.2">
      <rect x="3.5" y="3.5" width="7.5" height="7.5" rx="1" />
      <path d="M8.5 2V1.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1H2" />
    </svg>
  );
}
