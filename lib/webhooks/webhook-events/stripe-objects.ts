// The objects Stripe's sample events carry (a PaymentIntent, a Price), with the fields and nesting of
// Stripe's API reference at the pinned api_version, in test mode; one event's references agree.
import { randomChars, stripeId } from './sample.ts';

export const DAY = 86_400;
export const AMOUNT = 2000;

/** The objects one event refers to, made once per event so that its references agree. */
export function ids() {
  return {
    customer: stripeId('cus'),
    paymentIntent: stripeId('pi'),
    charge: stripeId('ch'),
    paymentMethod: stripeId('pm'),
    subscription: stripeId('sub'),
    invoice: stripeId('in'),
    price: stripeId('price'),
    product: stripeId('prod'),
  };
}
export type Ids = ReturnType<typeof ids>;

export const customerDetails = {
  address: { city: 'Berlin', country: 'DE', line1: 'Example Street 1', line2: null, postal_code: '10115', state: null },
  email: 'jenny.rosen@example.com',
  name: 'Jenny Rosen',
  phone: null,
  tax_exempt: 'none',
  tax_ids: [],
};

export function paymentIntent(i: Ids, created: number, succeeded: boolean) {
  return {
    id: i.paymentIntent,
    object: 'payment_intent',
    amount: AMOUNT,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: succeeded ? AMOUNT : 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: { allow_redirects: 'always', enabled: true },
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic_async',
    client_secret: `${i.paymentIntent}_secret_${randomChars(25)}`,
    confirmation_method: 'automatic',
    created,
    currency: 'usd',
    customer: i.customer,
    description: 'Order #1042',
    invoice: null,
    last_payment_error: succeeded
      ? null
      : {
          charge: i.charge,
          code: 'card_declined',
          decline_code: 'generic_decline',
          doc_url: 'https://stripe.com/docs/error-codes/card-declined',
          message: 'Your card was declined.',
          payment_method: {
            id: i.paymentMethod,
            object: 'payment_method',
            billing_details: {
              address: customerDetails.address,
              email: customerDetails.email,
              name: 'Jenny Rosen',
              phone: null,
            },
            card: { brand: 'visa', country: 'US', exp_month: 12, exp_year: 2030, funding: 'credit', last4: '0002' },
            created,
            customer: null,
            livemode: false,
            metadata: {},
            type: 'card',
          },
          type: 'card_error',
        },
    latest_charge: i.charge,
    livemode: false,
    metadata: { order_id: '1042' },
    next_action: null,
    on_behalf_of: null,
    payment_method: succeeded ? i.paymentMethod : null,
    payment_method_options: {
      card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' },
    },
    payment_method_types: ['card'],
    processing: null,
    receipt_email: customerDetails.email,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: succeeded ? 'succeeded' : 'requires_payment_method',
    transfer_data: null,
    transfer_group: null,
  };
}

export function price(i: Ids, created: number) {
  return {
    id: i.price,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created,
    currency: 'usd',
    livemode: false,
    lookup_key: 'pro_monthly',
    metadata: {},
    nickname: 'Pro',
    product: i.product,
    recurring: {
      aggregate_usage: null,
      interval: 'month',
      interval_count: 1,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    tax_behavior: 'unspecified',
    type: 'recurring',
    unit_amount: AMOUNT,
    unit_amount_decimal: String(AMOUNT),
  };
}
