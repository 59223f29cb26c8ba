'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { Suspense, useState, type ReactNode } from 'react';
import { useQuery } from 'urql';
import { toSignIn } from './client';
import { ViewerContext, ViewerQuery, type Viewer } from './viewer';

interface NavItem {
  href: string;
  label: string;
  /** Shown only to roles that may call this mutation (pages a role may not use are absent). */
  needs?: string;
}

// The console's pages, in the order of the navigation.
const NAV: NavItem[] = [
  { href: '/', label: 'Overview' },
  { href: '/deliveries', label: 'Deliveries' },
  { href: '/events', label: 'Events' },
  { href: '/orders', label: 'Orders' },
  { href: '/replays', label: 'Replays' },
  { href: '/operators', label: 'Operators', needs: 'createOperator' },
];

export function ConsoleFrame({ children }: { children: ReactNode }) {
  const [{ data, error, fetching }] = useQuery({ query: ViewerQuery });
  if (fetching && !data) return <p aria-busy="true">Loading…</p>;
  if (error && !data) {
    return (
      <p role="alert">
        The console could not reach the operator API: {error.message}. <a href="/login">Sign in again</a>.
      </p>
    );
  }
  const viewer = data!.me;
  return (
    <ViewerContext.Provider value={viewer}>
      <Header viewer={viewer} />
      <main className="console-main">
        {/* Pages read their filters from the URL (useSearchParams), which needs a boundary to build. */}
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>{children}</Suspense>
      </main>
    </ViewerContext.Provider>
  );
}

function Header({ viewer }: { viewer: Viewer }) {
  const pathname = usePathname();
  const [signingOut, setSigningOut] = useState(false);
  async function signOut() {
    setSigningOut(true);
    await fetch('/api/session', { method: 'DELETE' }).catch(() => undefined);
    toSignIn();
  }
  const items = NAV.filter((item) => !item.needs || viewer.allowedMutations.includes(item.needs));
  return (
    <header
      style={{ display: 'flex', gap: '1.5rem', alignItems: 'center', borderBottom: '1px solid var(--line)', padding: '0.75rem 1.5rem' }}
    >
      <strong>Partner Delivery Platform</strong>
      <nav aria-label="Console">
        <ul style={{ display: 'flex', gap: '1rem', listStyle: 'none', margin: 0, padding: 0 }}>
          {items.map((item) => (
            <li key={item.href}>
              <Link href={item.href} aria-current={pathname === item.href ? 'page' : undefined}>
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <span style={{ marginLeft: 'auto' }} aria-label="Signed in as">
        {viewer.operator.email} <span data-testid="role">({viewer.operator.role})</span>
      </span>
      <button type="button" onClick={signOut} disabled={signingOut}>
        Sign out
      </button>
    </header>
  );
}
