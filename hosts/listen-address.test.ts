import test from "ava";
import { describeListenAddress, httpOrigin } from "./listen-address.js";

test("every interface is named as such, with a loopback URL a local client can use", (t) => {
  for (const [address, family, boundUrl] of [
    ["::", "IPv6", "http://[::]:3000"],
    ["0.0.0.0", "IPv4", "http://0.0.0.0:3000"],
  ] as const) {
    const described = describeListenAddress({ address, family, port: 3000 });
    t.true(described.allInterfaces, address);
    t.is(described.boundUrl, boundUrl);
    t.is(described.url, "http://127.0.0.1:3000");
    t.is(described.message, `svc listening on ${boundUrl} (all interfaces; on this machine: http://127.0.0.1:3000)`);
  }
});

test("a loopback address is the URL itself and says how to listen on every interface", (t) => {
  const v4 = describeListenAddress({ address: "127.0.0.1", family: "IPv4", port: 3000 });
  t.false(v4.allInterfaces);
  t.is(v4.url, "http://127.0.0.1:3000");
  t.is(v4.message, "svc listening on http://127.0.0.1:3000 (this machine only; HOST=0.0.0.0 listens on every interface)");
  const v6 = describeListenAddress({ address: "::1", family: "IPv6", port: 3000 });
  t.is(v6.url, "http://[::1]:3000");
  t.is(v6.clientHost, "::1");
});

test("a specific interface is reported as bound", (t) => {
  const described = describeListenAddress({ address: "192.168.1.5", family: "IPv4", port: 8080 });
  t.is(described.url, "http://192.168.1.5:8080");
  t.is(described.message, "svc listening on http://192.168.1.5:8080");
});

test("IPv6 hosts are bracketed in URLs", (t) => {
  t.is(httpOrigin("fe80::1", 80), "http://[fe80::1]:80");
  t.is(httpOrigin("example.test", 80), "http://example.test:80");
});
