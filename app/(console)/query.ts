import { graphql, type ResultOf } from '../_console/graphql';

export const OverviewPage = graphql(`
  query OverviewPage($windowMinutes: Int!) {
    overview(windowMinutes: $windowMinutes) {
      windowMinutes
      since
      attempts
      successRate
      pendingDeliveries
      dueDeliveries
      backlogCountLimit
      oldestWaitingSeconds
      perMinute {
        minute
        succeeded
        failed
      }
      failingSubscriptions {
        id
        partnerId
        partnerName
        environment
        url
        failingSince
        consecutiveFailures
      }
      disabledSubscriptions {
        id
        partnerId
        partnerName
        environment
        url
        disabledReason
      }
      latestFailures(first: 20) {
        attemptId
        eventId
        eventType
        subscriptionId
        url
        partnerId
        partnerName
        environment
        number
        startedAt
        responseStatus
        errorKind
        errorMessage
      }
    }
  }
`);

export type OverviewData = ResultOf<typeof OverviewPage>['overview'];
export type Failing = OverviewData['failingSubscriptions'][number];
export type Disabled = OverviewData['disabledSubscriptions'][number];
export type Failure = OverviewData['latestFailures'][number];
