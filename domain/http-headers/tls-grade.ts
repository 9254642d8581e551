// The ssl_tls section from what the connection reported. Grades: A for a trusted certificate over
// TLS 1.3, A- over TLS 1.2, B when the certificate expires within 14 days, F for an untrusted or
// expired certificate, a protocol older than TLS 1.2, or no TLS at all. Percentages for overall_score:
// A 100, A- 90, B 75, F 0.
import type { TlsInfo } from '../../lib/net/measure.ts';

const PERCENT: Record<string, number> = { A: 100, 'A-': 90, B: 75, F: 0 };
const DAY_MS = 86_400_000;

export function analyzeTls(tls: TlsInfo | null, now = Date.now()) {
  if (!tls) {
    // The contract's certificate is an object of strings: empty when there is no certificate.
    return {
      enabled: false,
      grade: 'F',
      certificate: { subject: '', issuer: '', valid_from: '', valid_to: '' },
      ssl_version: '',
      days_to_expiry: null,
      details: ['not served over HTTPS'],
      percentage: 0,
    };
  }
  const details: string[] = [];
  const validTo = tls.certificate ? Date.parse(tls.certificate.valid_to) : NaN;
  const daysToExpiry = Number.isFinite(validTo) ? Math.floor((validTo - now) / DAY_MS) : null;
  let result: string;
  if (!tls.authorized) {
    result = 'F';
    details.push(`certificate not trusted: ${tls.authorizationError ?? 'unknown reason'}`);
  } else if (!/^TLSv1\.[23]$/.test(tls.protocol)) {
    result = 'F';
    details.push(`${tls.protocol || 'unknown protocol'} is older than TLS 1.2`);
  } else if (daysToExpiry !== null && daysToExpiry < 14) {
    result = 'B';
    details.push(`certificate expires in ${daysToExpiry} days`);
  } else {
    result = tls.protocol === 'TLSv1.3' ? 'A' : 'A-';
  }
  details.push(`protocol ${tls.protocol}`);
  if (daysToExpiry !== null) details.push(`certificate valid for ${daysToExpiry} more days`);
  return {
    enabled: true,
    grade: result,
    certificate: tls.certificate,
    ssl_version: tls.protocol,
    days_to_expiry: daysToExpiry,
    details,
    percentage: PERCENT[result]!,
  };
}
