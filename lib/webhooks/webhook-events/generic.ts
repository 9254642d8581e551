// Events of senders that sign by a standard rather than by a provider of their own. Standard Webhooks:
// the spec's payload ({type, timestamp, data}) with webhook-id (a msg_ id, what receivers dedupe on) and
// webhook-timestamp, the signature adding webhook-signature. A plain HMAC sender: a small JSON event,
// its digest in the header the webhook names.
import { VERSION } from '../../version.ts';
import { type EventKind, randomChars, unix, uuid } from './sample.ts';

const USER_AGENT = `netops-test-events/${VERSION}`;

function standardEvent(type: string, description: string, data: (now: Date) => object): EventKind {
  return {
    description,
    build: ({ now }) => {
      const id = `msg_${randomChars(27)}`;
      return {
        id,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': id,
          'webhook-timestamp': String(unix(now)),
        },
        body: JSON.stringify({ type, timestamp: now.toISOString(), data: data(now) }),
      };
    },
  };
}

export const STANDARD_WEBHOOKS_EVENTS: Record<string, EventKind> = {
  'user.created': standardEvent('user.created', 'a user signed up', (now) => ({
    id: `user_${randomChars(24)}`,
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    created_at: now.toISOString(),
  })),
  'invoice.paid': standardEvent('invoice.paid', 'an invoice paid', (now) => ({
    id: `inv_${randomChars(24)}`,
    customer_id: `cus_${randomChars(24)}`,
    amount: 4200,
    currency: 'EUR',
    status: 'paid',
    paid_at: now.toISOString(),
  })),
};

export const HMAC_EVENTS: Record<string, EventKind> = {
  'test.event': {
    description: "a small JSON event, its HMAC-SHA256 hex digest in the webhook's header",
    build: ({ now }) => {
      const id = uuid();
      return {
        id,
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
        body: JSON.stringify({
          id,
          type: 'test.event',
          created_at: now.toISOString(),
          data: { message: 'A test event from netops' },
        }),
      };
    },
  },
};
