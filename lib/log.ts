import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, name?: string): Logger {
  return pino({
    level,
    name,
    // Credentials must never reach logs, whatever a caller passes in.
    redact: {
      paths: [
        'headers.authorization',
        'headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        '*.password',
        '*.apiKey',
        '*.token',
      ],
      censor: '[redacted]',
    },
  });
}
