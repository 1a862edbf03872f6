import { describe, expect, it } from 'vitest';
import { ChatContext, type FunctionCall } from '../../llm/chat-context.js';
import { ToolCallIds } from './tool-call-ids.js';

function call(callId: string, name = 'clock', args = '{}'): FunctionCall {
  return { type: 'function_call', id: `fnc_${callId}`, callId, name, arguments: args, createdAtMs: 0 };
}

function setup() {
  const history = new ChatContext();
  const ids = new ToolCallIds({ history, context: () => history });
  /** Records `c` with an output, as the session does once its batch is done. */
  const record = (c: FunctionCall, cancelled = false) => {
    history.insert(c);
    history.addFunctionCallOutput({ callId: c.callId, name: c.name, output: 'ok', isError: cancelled });
    ids.finished(c.callId, cancelled);
  };
  const user = () => history.addMessage({ role: 'user', content: 'again' });
  return { ids, record, user };
}

describe('ToolCallIds: the call-id rule', () => {
  it('ignores an id repeated within one response', () => {
    const { ids } = setup();
    const response = new Set<string>();
    expect(ids.admit(call('call_0'), response)).toMatchObject({ run: true });
    expect(ids.admit(call('call_0', 'other'), response)).toEqual({
      run: false,
      reason: 'repeated_in_response',
    });
  });

  it('does not run the same call again within the turn, running or answered', () => {
    const { ids, record } = setup();
    const first = call('call_7', 'book', '{"people":2}');
    expect(ids.admit(first, new Set())).toMatchObject({ run: true, call: first });
    expect(ids.admit(call('call_7', 'book', '{"people":2}'), new Set())).toEqual({
      run: false,
      reason: 'already_running',
    });
    record(first);
    expect(ids.admit(call('call_7', 'book', '{"people":2}'), new Set())).toEqual({
      run: false,
      reason: 'already_answered',
    });
  });

  it('runs a reused id under a fresh one: in a new turn, for another call, or to retry a cancelled call', () => {
    const { ids, record, user } = setup();
    record(call('call_0'));
    // Same id, other arguments, same turn.
    const other = ids.admit(call('call_0', 'clock', '{"tz":"UTC"}'), new Set());
    expect(other).toMatchObject({ run: true, call: { callId: 'call_0_2' } });
    if (other.run) record(other.call);
    user();
    // Same id, name and arguments, but a user message came since: a new call.
    expect(ids.admit(call('call_0'), new Set())).toMatchObject({ run: true, call: { callId: 'call_0_3' } });
    const cancelled = call('call_9');
    ids.admit(cancelled, new Set());
    record(cancelled, true);
    expect(ids.admit(call('call_9'), new Set())).toMatchObject({ run: true, call: { callId: 'call_9_2' } });
  });
});
