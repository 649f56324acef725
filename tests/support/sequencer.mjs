// Jest's order (failed first, then slowest known, then largest file), except that the contract fuzz starts
// first: it runs for its fixed time budget on one worker while the other suites share the rest, so the
// suite ends when the longer of the two does instead of after both.
import testSequencer from '@jest/test-sequencer';

const Sequencer = testSequencer.default ?? testSequencer;

const first = ['/tests/contract-fuzz.test.ts'];

export default class FuzzFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (test) => (first.some((suffix) => test.path.endsWith(suffix)) ? 0 : 1);
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
