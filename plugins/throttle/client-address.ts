import ipaddr from "ipaddr.js";

/**
 * The prefix an IPv6 client is counted by. One subscriber usually holds a /56 or a /48, and can
 * send from any of its 2^72 addresses: counted per address, an IPv6 client would have a budget
 * per address it cares to use (express-rate-limit counts by /56 for the same reason).
 */
export const IPV6_PREFIX_BITS = 56;

/**
 * The key a client address is counted under: an IPv4 address as it is (an IPv4-mapped IPv6
 * address, `::ffff:203.0.113.7`, as the IPv4 address it is), an IPv6 address as its /56 network.
 * Anything that is not an address (`unknown`) is its own key.
 *
 * @example
 * clientAddressKey("::ffff:203.0.113.7");        // "203.0.113.7"
 * clientAddressKey("2001:db8:1:2ff:aa::1");       // "2001:db8:1:200::/56"
 */
export function clientAddressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const bytes = parsed.toByteArray();
  const kept = IPV6_PREFIX_BITS / 8;
  const network = bytes.map((byte, index) => (index < kept ? byte : 0));
  return `${ipaddr.fromByteArray(network).toString()}/${IPV6_PREFIX_BITS}`;
}
