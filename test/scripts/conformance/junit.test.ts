import { describe, expect, it } from 'vitest';
import { decode, parseJunit } from '../../../scripts/conformance/junit.js';

// The shapes of the e2e framework's junit_01.xml (ginkgo v2.4), cut down to one spec of each kind.
const SAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
  <testsuites tests="6" disabled="1" errors="0" failures="2" time="80.5">
      <testsuite name="Kubernetes e2e suite" package="/tmp/bin" tests="6" disabled="0" skipped="1" errors="0" failures="2" time="80.5" timestamp="2026-11-25T23:40:28">
          <testcase name="[SynchronizedBeforeSuite]" classname="Kubernetes e2e suite" status="passed" time="0.036"></testcase>
          <testcase name="[It] [sig-node] RuntimeClass should run a Pod requesting a RuntimeClass with a configured handler [NodeFeature:RuntimeHandler]" classname="Kubernetes e2e suite" status="skipped" time="0">
              <skipped message="skipped"></skipped>
          </testcase>
          <testcase name="[It] [sig-node] PodOSRejection [NodeConformance] Kubelet should reject pod when the node OS doesn&#39;t match pod&#39;s OS" classname="Kubernetes e2e suite" status="passed" time="2.5"></testcase>
          <testcase name="[It] [sig-node] PrivilegedPod [NodeConformance] should enable privileged commands [LinuxOnly]" classname="Kubernetes e2e suite" status="failed" time="12.25">
              <failure message="Expected&#xA;    &lt;int&gt;: 2&#xA;to equal&#xA;    &lt;int&gt;: 0" type="failed">[FAILED] Expected&#xA;    &lt;int&gt;: 2&#xA;to equal&#xA;    &lt;int&gt;: 0&#xA;In [It] at: test/e2e/common/node/privileged.go:61 @ 11/25/26 23:50:01.2&#xA;</failure>
              <system-err>STEP: Creating a pod</system-err>
          </testcase>
          <testcase name="[It] [sig-node] Container Runtime blackbox test when running a container with a new image should be able to pull from private registry with secret [NodeConformance]" classname="Kubernetes e2e suite" status="timedout" time="65.7">
              <failure message="&#xA;A suite timeout occurred" type="timedout">A suite timeout occurred</failure>
          </testcase>
          <testcase name="[It] [sig-node] Sysctls [LinuxOnly] [NodeConformance] should support sysctls [MinimumKubeletVersion:1.21] [Conformance]" classname="Kubernetes e2e suite" status="skipped" time="0.1">
              <skipped message="skipped - Only supported for node OS distro [gci ubuntu] (not debian)"></skipped>
          </testcase>
          <testcase name="[ReportAfterSuite] Kubernetes e2e JUnit report" classname="Kubernetes e2e suite" status="failed" time="0.001">
              <failure message="could not write the report" type="failed"></failure>
          </testcase>
      </testsuite>
  </testsuites>`;

describe('parseJunit', () => {
  const report = parseJunit(SAMPLE);

  it('keeps the selected specs, named without the [It] prefix and with their entities decoded', () => {
    expect(report.specs.map((s) => s.name)).toEqual([
      "[sig-node] PodOSRejection [NodeConformance] Kubelet should reject pod when the node OS doesn't match pod's OS",
      '[sig-node] PrivilegedPod [NodeConformance] should enable privileged commands [LinuxOnly]',
      '[sig-node] Container Runtime blackbox test when running a container with a new image should be able to pull from private registry with secret [NodeConformance]',
      '[sig-node] Sysctls [LinuxOnly] [NodeConformance] should support sysctls [MinimumKubeletVersion:1.21] [Conformance]',
    ]);
  });

  it('counts a spec the focus left out as not selected, and one that skipped itself as a skipped spec with its reason', () => {
    expect(report.notSelected).toBe(1);
    expect(report.specs[3]).toEqual({ name: expect.stringContaining('Sysctls'), status: 'skipped', seconds: 0.1, failure: 'skipped - Only supported for node OS distro [gci ubuntu] (not debian)' });
  });

  it('gives each status, its seconds and the first non-empty line of the failure', () => {
    expect(report.specs.map((s) => [s.status, s.seconds, s.failure])).toEqual([
      ['passed', 2.5, undefined],
      ['failed', 12.25, 'Expected'],
      ['timedout', 65.7, 'A suite timeout occurred'],
      ['skipped', 0.1, 'skipped - Only supported for node OS distro [gci ubuntu] (not debian)'],
    ]);
  });

  it('keeps suite-level nodes out of the specs, and those that failed apart', () => {
    expect(report.suiteFailures).toEqual([{ name: '[ReportAfterSuite] Kubernetes e2e JUnit report', status: 'failed', seconds: 0.001, failure: 'could not write the report' }]);
  });

  it('leaves out the time the framework stamps on a failure message', () => {
    const stamped = parseJunit('<testcase name="a" status="failed" time="1"><failure message="Nov  5 23:45:32.663: cmd [ip link add dummy1 type dummy] failed" type="failed"></failure></testcase>');
    expect(stamped.specs[0]!.failure).toBe('cmd [ip link add dummy1 type dummy] failed');
  });

  it('reads the body when the message is empty, and what follows an object the failure dumps', () => {
    const body = '[FAILED] Verifying pod resources resize state. Pod: {&#xA;  &#34;metadata&#34;: {&#xA;  }&#xA;}&#xA;: [&#xA;oom_score_adj value 0 not equal to expected -997&#xA;]&#xA;In [It] at: k8s.io/kubernetes/test/e2e/common/node/pod_resize.go:857 @ 11/29/26 16:22:24.23&#xA;';
    const dumped = parseJunit(`<testcase name="a" status="failed" time="1"><failure message="" type="failed">${body}</failure></testcase>`);
    expect(dumped.specs[0]!.failure).toBe('Verifying pod resources resize state. Pod: {…} : [ oom_score_adj value 0 not equal to expected -997 ]');
    const plain = parseJunit('<testcase name="b" status="failed" time="1"><failure message="" type="failed">[FAILED] timed out waiting&#xA;In [It] at: x.go:1&#xA;</failure></testcase>');
    expect(plain.specs[0]!.failure).toBe('timed out waiting');
  });

  it('reads a testcase with no status attribute from what it holds', () => {
    const old = parseJunit('<testcase name="a" time="1"><failure message="boom"/></testcase><testcase name="b" time="2"/>');
    expect(old.specs).toEqual([{ name: 'a', status: 'failed', seconds: 1, failure: 'boom' }, { name: 'b', status: 'passed', seconds: 2 }]);
  });
});

describe('decode', () => {
  it('decodes named, decimal and hexadecimal references and leaves unknown ones', () => {
    expect(decode('&lt;a&gt; &amp; &quot;b&quot; &apos;c&#39; &#x41;&#10;&nbsp;')).toBe(`<a> & "b" 'c' A\n&nbsp;`);
  });
});
