// Server-Sent Events of the API (a webhook's captures, a load test's status), read from fetch's body
// with eventsource-parser: each event with its name, id and parsed data.
import { EventSourceParserStream } from 'eventsource-parser/stream';

export interface ServerEvent {
  event: string;
  id: string | undefined;
  data: any;
}

export async function* serverEvents(res: Response): AsyncGenerator<ServerEvent> {
  if (!res.body) return;
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const e of events) {
    let data: unknown = e.data;
    try {
      data = JSON.parse(e.data);
    } catch {
      // a comment-like event: kept as text
    }
    yield { event: e.event ?? 'message', id: e.id, data };
  }
}
