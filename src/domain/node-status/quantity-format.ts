/**
 * Quantities as the API server prints them (resource.Quantity's canonical form): cpu in DecimalSI
 * ("4", "3500m"), bytes in BinarySI with the largest exact suffix ("16318412Ki", "1Gi", "1000"),
 * counts as plain integers. A node's status must compare equal to what the server echoes back.
 */
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

export function cpuQuantity(millis: number): string {
  const m = Math.max(0, Math.round(millis));
  return m % 1000 === 0 ? String(m / 1000) : `${m}m`;
}

export function binaryQuantity(bytes: number): string {
  let v = Math.max(0, Math.round(bytes));
  if (v === 0) return '0';
  let i = 0;
  while (i < BINARY_SUFFIXES.length - 1 && v % 1024 === 0) {
    v /= 1024;
    i++;
  }
  return `${v}${BINARY_SUFFIXES[i]}`;
}

export function countQuantity(n: number): string {
  return String(Math.max(0, Math.round(n)));
}
