// Slack's Events API requests: compact JSON with Slack's user agent and X-Slack-Request-Timestamp (the
// signature adds X-Slack-Signature). An event arrives in the event_callback wrapper (token, team_id,
// api_app_id, event, event_id, event_time, authorizations); the URL check is a url_verification whose
// challenge the handler answers back. Shapes from Slack's Events API reference; the values are ours.
import { type EventContext, type EventKind, randomChars, slackId, unix, uuid } from './sample.ts';

function slackRequest(payload: (ctx: EventContext, ts: string) => { id: string; body: object }): EventKind['build'] {
  return (ctx) => {
    const seconds = unix(ctx.now);
    const { id, body } = payload(
      ctx,
      `${seconds}.${String(ctx.now.getMilliseconds()).padStart(3, '0')}${randomChars(3, '0123456789')}`,
    );
    return {
      id,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        'x-slack-request-timestamp': String(seconds),
      },
      body: JSON.stringify(body),
    };
  };
}

export const SLACK_EVENTS: Record<string, EventKind> = {
  app_mention: {
    description: 'event_callback: a message that mentions your app',
    build: slackRequest(({ now }, ts) => {
      const team = slackId('T');
      const bot = slackId('U');
      const eventId = slackId('Ev');
      const text = 'is the deploy done?';
      return {
        id: eventId,
        body: {
          token: randomChars(24),
          team_id: team,
          context_team_id: team,
          api_app_id: slackId('A'),
          event: {
            user: slackId('U'),
            type: 'app_mention',
            ts,
            client_msg_id: uuid(),
            text: `<@${bot}> ${text}`,
            team,
            blocks: [
              {
                type: 'rich_text',
                block_id: randomChars(4),
                elements: [
                  {
                    type: 'rich_text_section',
                    elements: [
                      { type: 'user', user_id: bot },
                      { type: 'text', text: ` ${text}` },
                    ],
                  },
                ],
              },
            ],
            channel: slackId('C'),
            event_ts: ts,
          },
          type: 'event_callback',
          event_id: eventId,
          event_time: unix(now),
          authorizations: [
            { enterprise_id: null, team_id: team, user_id: bot, is_bot: true, is_enterprise_install: false },
          ],
          is_ext_shared_channel: false,
          event_context: `4-${Buffer.from(randomChars(48)).toString('base64url')}`,
        },
      };
    }),
  },
  url_verification: {
    description: 'the check Slack sends when the request URL is set (answer its challenge)',
    build: slackRequest(() => {
      const challenge = randomChars(48);
      return { id: challenge, body: { token: randomChars(24), challenge, type: 'url_verification' } };
    }),
  },
};
