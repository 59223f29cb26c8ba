'use client';

// First: before any schema is parsed in the browser.
import '../_console/zod-without-eval';
import { useMemo, type ReactNode } from 'react';
import { Provider } from 'urql';
import { createConsoleClient } from '../_console/client';
import { ConsoleFrame } from '../_console/frame';
import '../console.css';

// Every console page: the GraphQL client (the only data path) and the frame (who is signed in, the
// navigation their role may use, sign-out).
export default function ConsoleLayout({ children }: { children: ReactNode }) {
  const client = useMemo(createConsoleClient, []);
  return (
    <Provider value={client}>
      <ConsoleFrame>{children}</ConsoleFrame>
    </Provider>
  );
}
