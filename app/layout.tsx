import type { ReactNode } from 'react';

export const metadata = { title: 'Partner Delivery Platform' };

// Every page is rendered per request: Next gives its inline scripts the nonce of that request's
// Content-Security-Policy (server/http/console-security.ts), and a prerendered page would have none.
export const dynamic = 'force-dynamic';

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
