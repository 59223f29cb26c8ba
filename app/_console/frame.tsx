'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { useQuery } from 'urql';
import { toSignIn } from './client';
import { IdSearch } from './search/id-search';
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
  { href: '/partners', label: 'Partners' },
  { href: '/access-requests', label: 'Access requests' },
  { href: '/deliveries', label: 'Deliveries' },
  { href: '/events', label: 'Events' },
  { href: '/orders', label: 'Orders' },
  { href: '/replays', label: 'Replays' },
  { href: '/operators', label: 'Operators', needs: 'createOperator' },
  { href: '/audit', label: 'Audit log' },
  { href: '/outbox', label: 'Outbox', needs: 'resendHandover' },
];

export function ConsoleFrame({ children }: { children: ReactNode }) {
  const [{ data, error, fetching }] = useQuery({ query: ViewerQuery });
  if (fetching && !data) {
    return (
      <main className="console-main" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  }
  if (error && !data) {
    return (
      <main className="console-main">
        <p role="alert">
          The console could not reach the operator API: {error.message}. <a href="/login">Sign in again</a>.
        </p>
      </main>
    );
  }
  const viewer = data!.me;
  return (
    <ViewerContext.Provider value={viewer}>
      {/* First in the tab order: past the header and navigation to the page itself. */}
      <a href="#main" className="skip-link">
        Skip to main content
      </a>
      <Header viewer={viewer} />
      {/* tabIndex -1: the skip link moves focus here, so the next Tab goes on from the page's start. */}
      <main id="main" tabIndex={-1} className="console-main">
        {/* Pages read their filters from the URL (useSearchParams), which needs a boundary to build. */}
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>{children}</Suspense>
      </main>
    </ViewerContext.Provider>
  );
}

function Header({ viewer }: { viewer: Viewer }) {
  const pathname = usePathname();
  const items = NAV.filter((item) => !item.needs || viewer.allowedMutations.includes(item.needs));
  // One row at 1280 px with room for a 16rem search box: a short name, a compact navigation, and the
  // operator's e-mail (cut short when long) opening the account menu.
  return (
    <header className="console-header">
      <strong className="brand">
        <abbr title="Partner Delivery Platform">PDP</abbr>
      </strong>
      <nav aria-label="Console">
        <ul>
          {items.map((item) => (
            <li key={item.href}>
              <Link href={item.href} aria-current={isCurrent(pathname, item.href) ? 'page' : undefined}>
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <IdSearch />
      <AccountMenu viewer={viewer} />
    </header>
  );
}

/** Who is signed in, and a disclosure with Change password and Sign out; it closes on a choice, Escape or a click elsewhere. */
function AccountMenu({ viewer }: { viewer: Viewer }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const escape = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        root.current?.querySelector('button')?.focus();
      }
    };
    document.addEventListener('pointerdown', away);
    document.addEventListener('focusin', away);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('pointerdown', away);
      document.removeEventListener('focusin', away);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);
  async function signOut() {
    setSigningOut(true);
    await fetch('/api/session', { method: 'DELETE' }).catch(() => undefined);
    toSignIn();
  }
  const { email, role } = viewer.operator;
  return (
    <div className="account" ref={root}>
      <button
        type="button"
        className="account-toggle"
        aria-expanded={open}
        aria-controls="account-menu"
        aria-label={`Account: ${email} (${role})`}
        title={`${email} (${role})`}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="signed-in" aria-label="Signed in as">
          <span className="email">{email}</span> <span data-testid="role">({role})</span>
        </span>
        <span aria-hidden="true">▾</span>
      </button>
      <ul id="account-menu" className="account-menu" hidden={!open}>
        <li>
          <Link href="/account" aria-current={pathname === '/account' ? 'page' : undefined}>
            Change password
          </Link>
        </li>
        <li>
          <button type="button" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
        </li>
      </ul>
    </div>
  );
}

/** The page's own entry, or its section's (a partner's page is under Partners). */
function isCurrent(pathname: string, href: string): boolean {
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
}
