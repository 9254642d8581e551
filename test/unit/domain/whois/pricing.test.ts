import { describe, expect, it } from 'vitest';
import { convert, priceOf, usdPrice } from '../../../../domain/whois/pricing.ts';

describe('prices', () => {
  it('come from the shipped lists in USD and convert with the ECB rates', () => {
    expect(usdPrice('com')).toEqual({ registration: 10.88, renewal: 10.88, source: 'dynadot' });
    expect(usdPrice('nosuchsuffix')).toBeNull();
    // USD 1 = 1/1.1684 EUR, 0.87058/1.1684 GBP, 182.x/1.1684 JPY (ECB, 2026-04-13).
    expect(convert(1.1684, 'EUR')).toBe(1);
    expect(convert(1.1684, 'GBP')).toBe(0.87);
    expect(Number.isInteger(convert(10, 'JPY'))).toBe(true);
    expect(priceOf('com', 'USD')).toEqual({ registration: 10.88, renewal: 10.88, currency: 'USD' });
  });

  it('fill suffixes the newer list lacks from the older one', () => {
    const porkbunOnly = usdPrice('org.mx');
    expect(porkbunOnly?.source).toBe('porkbun');
  });
});
