// The call-to-reply map of the Host protocol, checked by the compiler (`npm run typecheck`): each
// call's reply value is the answer its service method resolves with — per tool name, per remote
// method and request form, per archive call — and every such answer is a `ReplyValue`.
import type { ReplyOf, ReplyValue, ScheduleCall } from '../../machines/events.ts';
import type {
  ArchiveActivity,
  BulkReanchorResult,
  CatalogEntry,
  CatalogPage,
  CatalogRequest,
  DeleteResult,
  DriftPage,
  DriftReport,
  ScheduleService,
  ScheduleView,
  TaskRef,
  ToolFailure,
  ToolResult,
} from '../../src/index.ts';

type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;
type Remote = ScheduleService['remote'];

describe('ReplyOf', () => {
  it('maps a tool call to its tool result, by name or for a name known only at run time', () => {
    expectTypeOf<ReplyOf<{ kind: 'tool'; sessionId: string; name: 'schedule_list'; args: unknown }>>().toEqualTypeOf<
      ScheduleView[] | ToolFailure
    >();
    expectTypeOf<ReplyOf<{ kind: 'tool'; sessionId: string; name: 'schedule_delete'; args: unknown }>>().toEqualTypeOf<
      ToolResult<'schedule_delete'>
    >();
    expectTypeOf<ReplyOf<{ kind: 'tool'; sessionId: string; name: string; args: unknown }>>().toEqualTypeOf<ToolResult<string>>();
  });

  it('maps each remote call to the answer of its service method', () => {
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'get'; request: TaskRef }>>().toEqualTypeOf<Answer<Remote['get']>>();
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'list'; request: unknown }>>().toEqualTypeOf<Answer<Remote['list']>>();
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'delete'; request: TaskRef }>>().toEqualTypeOf<DeleteResult>();
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'drift' }>>().toEqualTypeOf<DriftReport>();
  });

  it('answers catalog, drift and reanchor by the form of the request', () => {
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'catalog' }>>().toEqualTypeOf<CatalogEntry[]>();
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'catalog'; request: CatalogRequest }>>().toEqualTypeOf<CatalogPage | ToolFailure>();
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'catalog'; request: unknown }>>().toEqualTypeOf<
      CatalogEntry[] | CatalogPage | ToolFailure
    >();
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'drift'; request: { limit: 50 } }>>().toEqualTypeOf<DriftPage | ToolFailure>();
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'reanchor'; request: TaskRef }>>().toEqualTypeOf<ScheduleView | ToolFailure>();
    expectTypeOf<ReplyOf<{ kind: 'remote'; method: 'reanchor'; request: { all: true } }>>().toEqualTypeOf<
      BulkReanchorResult | ToolFailure
    >();
  });

  it('maps the archive calls to what they resolve with', () => {
    expectTypeOf<ReplyOf<{ kind: 'archive'; method: 'sessionActivity'; sessionId: string }>>().toEqualTypeOf<ArchiveActivity[]>();
    expectTypeOf<ReplyOf<{ kind: 'archive'; method: 'sessionStop'; sessionId: string }>>().toEqualTypeOf<undefined>();
  });

  it('holds every answer in ReplyValue', () => {
    expectTypeOf<ReplyOf<ScheduleCall>>().toExtend<ReplyValue>();
    expectTypeOf<ToolResult | Answer<Remote['history']> | DriftReport | ArchiveActivity[]>().toExtend<ReplyValue>();
  });
});
