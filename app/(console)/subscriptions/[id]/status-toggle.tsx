'use client';

import { useMutation } from 'urql';
import { graphql } from '../../../_console/graphql';
import { ConfirmButton } from '../../../_console/ui/confirm';
import { apiErrors, ErrorList } from '../../../_console/ui/errors';

const SetSubscriptionStatus = graphql(`
  mutation SetSubscriptionStatus($id: ID!, $status: WebhookSubscriptionStatus!) {
    setSubscriptionStatus(id: $id, status: $status) {
      id
      status
      disabledReason
      failingSince
    }
  }
`);

/** Disabling asks first (its deliveries are skipped until it is enabled); enabling restarts the failure clock. */
export function StatusToggle({
  id,
  status,
  url,
  onChanged,
}: {
  id: string;
  status: 'enabled' | 'disabled';
  url: string;
  onChanged: () => void;
}) {
  const [result, set] = useMutation(SetSubscriptionStatus);
  const change = async (next: 'enabled' | 'disabled') => {
    const done = await set({ id, status: next });
    if (done.data) onChanged();
  };
  return (
    <div className="inline-actions">
      {status === 'enabled' ? (
        <ConfirmButton
          label="Disable subscription"
          title="Disable this subscription?"
          description={`Nothing more is sent to ${url}: its new deliveries are skipped until someone enables it again.`}
          confirmLabel="Disable"
          disabled={result.fetching}
          onConfirm={() => change('disabled')}
        />
      ) : (
        <button type="button" className="primary" disabled={result.fetching} onClick={() => change('enabled')}>
          Enable subscription
        </button>
      )}
      <ErrorList errors={apiErrors(result.error)} />
    </div>
  );
}
