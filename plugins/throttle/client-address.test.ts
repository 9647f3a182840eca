import test from "ava";
import { clientAddressKey, IPV6_PREFIX_BITS } from "./client-address.js";

test("IPv4 addresses are their own key; IPv4-mapped IPv6 addresses are the IPv4 address", (t) => {
  t.is(clientAddressKey("203.0.113.7"), "203.0.113.7");
  t.is(clientAddressKey("::ffff:203.0.113.7"), "203.0.113.7");
  t.not(clientAddressKey("203.0.113.7"), clientAddressKey("203.0.113.8"));
});

test("IPv6 addresses are counted by their /56 network", (t) => {
  t.is(IPV6_PREFIX_BITS, 56);
  t.is(clientAddressKey("2001:db8:1:2ff:aa::1"), "2001:db8:1:200::/56");
  t.is(clientAddressKey("2001:DB8:1:2FF::9"), "2001:db8:1:200::/56");
  t.is(clientAddressKey("2001:0db8:0001:0200:0000:0000:0000:0001"), "2001:db8:1:200::/56");
  t.not(clientAddressKey("2001:db8:1:300::1"), clientAddressKey("2001:db8:1:2ff::1"));
});

test("what is not an address is its own key", (t) => {
  t.is(clientAddressKey("unknown"), "unknown");
  t.is(clientAddressKey(""), "");
});
