import { HandoverReveal } from './reveal';
import '../../console.css';

// Public: the partner opens this from the e-mail, with no account. Rendering reveals nothing (mail
// scanners and link previews fetch links); the key comes from the POST behind the button, once.
export const dynamic = 'force-dynamic';

export default async function HandoverPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <main id="main" className="console-main">
      <title>Your API credentials · Partner Delivery Platform</title>
      <meta name="referrer" content="no-referrer" />
      <h1>Your API credentials</h1>
      <HandoverReveal token={token} />
    </main>
  );
}
