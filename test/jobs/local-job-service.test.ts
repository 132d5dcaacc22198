import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { type JobRecord, jobSettled, jobStarted } from '../../src/jobs/contract.js';
import { LocalJobService, type LocalJobServiceOptions } from '../../src/jobs/local-job-service.js';
import { deferred } from '../core/agent-fixture.js';
import { fakeJob, recordingController } from './job-fixture.js';

const A = 'agent-a';
const B = 'agent-b';

function setup(options: Partial<LocalJobServiceOptions> = {}) {
  const context = new Context();
  const service = new LocalJobService({ context, ...options });
  const controller = recordingController();
  const other = recordingController();
  service.registerController(A, controller);
  service.registerController(B, other);
  return { context, service, controller, other };
}

test('ids count from 1 per owner and per kind', () => {
  const { service } = setup();
  const start = (owner: string, kind: string) => service.start(fakeJob({ owner, kind }).work).id;
  assert.equal(start(A, 'bash'), 'bash-1');
  assert.equal(start(A, 'bash'), 'bash-2');
  assert.equal(start(A, 'workflow'), 'workflow-1');
  assert.equal(start(B, 'bash'), 'bash-1');
  assert.deepEqual(
    service.list(A).map((record) => record.id),
    ['bash-1', 'bash-2', 'workflow-1'],
  );
});

test('work for an owner without a controller is refused before it runs', () => {
  const { service } = setup();
  const job = fakeJob({ owner: 'nobody' });
  assert.throws(
    () => service.start(job.work),
    (error: Error & { code?: string }) =>
      error.code === 'NO_CONTROLLER' && error.message.includes('nobody'),
  );
  assert.deepEqual(job.runs, []);
});

test('a run that throws registers nothing and does not use up the number', () => {
  const { service, context } = setup();
  const started: JobRecord[] = [];
  context.on(jobStarted, (record) => {
    started.push(record);
  });
  const broken = fakeJob({ owner: A, failToStart: new Error('spawn ENOENT') });
  assert.throws(
    () => service.start(broken.work),
    (error: Error & { code?: string }) =>
      error.code === 'JOB_START' && error.message.includes('spawn ENOENT'),
  );
  assert.deepEqual(service.list(A), []);
  assert.equal(started.length, 0);
  assert.equal(service.start(fakeJob({ owner: A }).work).id, 'fake-1');
  assert.equal(started.length, 1);
  assert.equal(started[0]?.status, 'running');
});

test('the per-owner cap refuses the 11th job until one settles', async () => {
  const { service, controller } = setup();
  const jobs = Array.from({ length: 10 }, () => fakeJob({ owner: A }));
  for (const job of jobs) service.start(job.work);
  const refused = fakeJob({ owner: A });
  assert.throws(
    () => service.start(refused.work),
    (error: Error & { code?: string }) =>
      error.code === 'JOB_CAP' &&
      error.message.includes('10') &&
      error.message.includes('job_kill'),
  );
  assert.deepEqual(refused.runs, []);
  assert.equal(
    service.start(fakeJob({ owner: B }).work).id,
    'fake-1',
    'another owner is not capped',
  );
  const notice = controller.next();
  jobs[0]?.finish();
  await notice;
  assert.equal(service.start(refused.work).id, 'fake-11');
});

test('the cap is configurable and counts stopping jobs', () => {
  const { service } = setup({ maxPerOwner: 1 });
  service.start(fakeJob({ owner: A, settleOnCancel: true }).work);
  service.kill('fake-1', A);
  assert.equal(service.get('fake-1', A).status, 'stopping');
  assert.throws(() => service.start(fakeJob({ owner: A }).work), { code: 'JOB_CAP' });
});

test('invalid limits are refused at construction', () => {
  assert.throws(
    () => new LocalJobService({ context: new Context(), maxPerOwner: 0 }),
    /maxPerOwner/,
  );
  assert.throws(
    () => new LocalJobService({ context: new Context(), outputLimitBytes: 1.5 }),
    /outputLimitBytes/,
  );
});

test('the first settlement wins: a kill after completion changes nothing', async () => {
  const { service, controller } = setup();
  const job = fakeJob({ owner: A, label: 'npm test' });
  service.start(job.work);
  const notice = controller.next();
  job.finish({ summary: 'exit 0' });
  const delivered = await notice;
  assert.equal(delivered.record.status, 'completed');
  assert.equal(delivered.notice, '[job fake-1 completed] npm test\nexit 0');
  const after = service.kill('fake-1', A, 'too late');
  assert.equal(after.status, 'completed');
  assert.equal(after.reason, undefined);
  assert.deepEqual(job.cancels, []);
  assert.equal(controller.deliveries.length, 1);
});

test('a job killed and then completed by its producer is recorded as killed', async () => {
  const { service, controller } = setup();
  const job = fakeJob({ owner: A, label: 'npm test' });
  service.start(job.work);
  const stopping = service.kill('fake-1', A, 'no longer needed');
  assert.equal(stopping.status, 'stopping');
  service.kill('fake-1', A, 'again');
  assert.deepEqual(job.cancels, ['no longer needed'], 'cancel is called once');
  const notice = controller.next();
  job.finish({ status: 'completed', summary: 'exit 0' });
  const delivered = await notice;
  assert.equal(delivered.record.status, 'killed');
  assert.equal(delivered.record.reason, 'no longer needed');
  assert.match(delivered.notice, /^\[job fake-1 killed: no longer needed\] npm test/);
  assert.equal(service.get('fake-1', A).status, 'killed');
});

test('a producer that ignores cancel is recorded as killed after the grace, once', async () => {
  const { service, controller } = setup({ killGraceMs: 1 });
  const job = fakeJob({ owner: A });
  service.start(job.work);
  const notice = controller.next();
  service.kill('fake-1', A);
  const delivered = await notice;
  assert.equal(delivered.record.status, 'killed');
  assert.match(delivered.record.summary ?? '', /did not stop within 1 ms/);
  job.finish();
  await job.settled;
  assert.equal(controller.deliveries.length, 1);
  assert.equal(service.get('fake-1', A).status, 'killed');
});

test('a rejected done counts as a failure with its message', async () => {
  const { service, controller } = setup();
  const job = fakeJob({ owner: A });
  service.start(job.work);
  const notice = controller.next();
  job.reject(new Error('the pipe broke'));
  const delivered = await notice;
  assert.equal(delivered.record.status, 'failed');
  assert.equal(delivered.record.summary, 'the pipe broke');
});

test('only the owner may read, wait on, get or kill a job', async () => {
  const { service } = setup();
  const job = fakeJob({ owner: A });
  service.start(job.work);
  for (const attempt of [
    () => service.read('fake-1', B),
    () => service.kill('fake-1', B),
    () => service.get('fake-1', B),
    () => service.read('fake-1', null),
  ]) {
    assert.throws(attempt, { code: 'NOT_OWNER' });
  }
  await assert.rejects(service.wait('fake-1', B, 10), { code: 'NOT_OWNER' });
  assert.deepEqual(job.cancels, []);
  assert.equal(service.get('fake-1', A).status, 'running');
  assert.deepEqual(service.list(B), []);
  assert.throws(
    () => service.read('fake-9', A),
    (error: Error & { code?: string }) =>
      error.code === 'UNKNOWN_JOB' && error.message.includes('your jobs are fake-1'),
  );
  assert.throws(() => service.read('fake-9', B), /you have no jobs/);
});

test('reads return only what is new since the last read', async () => {
  const { service, controller } = setup();
  const job = fakeJob({ owner: A });
  service.start(job.work);
  job.print('first line\n');
  assert.equal(service.read('fake-1', A).output, 'first line\n');
  job.print('second line\n');
  const second = service.read('fake-1', A);
  assert.equal(second.output, 'second line\n');
  assert.equal(second.record.status, 'running');
  assert.equal(service.read('fake-1', A).output, '');
  job.print('last words\n');
  const notice = controller.next();
  job.finish();
  assert.match((await notice).notice, /unread output: read it with job_output/);
  const final = service.read('fake-1', A);
  assert.equal(final.output, 'last words\n', 'output is drained when the job settles');
  assert.equal(final.record.status, 'completed');
});

test('unread output over the limit drops the oldest part with a marker', () => {
  const { service } = setup();
  const job = fakeJob({ owner: A, outputLimitBytes: 10 });
  service.start(job.work);
  job.print('0123456789');
  job.print('abcde');
  assert.equal(service.read('fake-1', A).output, '[… 5 bytes of output dropped]\n56789abcde');
  job.print('xyz');
  assert.equal(service.read('fake-1', A).output, 'xyz');
});

test('work without streamed output reads as empty', () => {
  const { service } = setup();
  service.start(fakeJob({ owner: A, silent: true }).work);
  assert.equal(service.read('fake-1', A).output, '');
});

test('observers see the committed record before the owner is told', async () => {
  const { service, context } = setup();
  const order: string[] = [];
  context.on(jobSettled, (record) => {
    order.push(`observer saw ${record.status}`);
  });
  const notified = deferred();
  service.registerController('agent-c', {
    deliver(record) {
      order.push(
        `deliver saw ${record.status}, service has ${service.get(record.id, 'agent-c').status}`,
      );
      notified.resolve();
    },
  });
  const job = fakeJob({ owner: 'agent-c' });
  service.start(job.work);
  job.finish();
  await notified.promise;
  assert.deepEqual(order, [
    'observer saw completed',
    'deliver saw completed, service has completed',
  ]);
});

test('wait resolves at settlement, at its timeout, or when aborted, and never rejects', async () => {
  const { service, controller } = setup();
  const job = fakeJob({ owner: A });
  service.start(job.work);
  const waiting = service.wait('fake-1', A, 600_000);
  job.finish({ summary: 'exit 0' });
  assert.equal((await waiting).status, 'completed');
  assert.equal(controller.deliveries.length, 0, 'the wait reports it; no second notice');
  assert.equal((await service.wait('fake-1', A, 600_000)).status, 'completed');

  service.start(fakeJob({ owner: A }).work);
  assert.equal((await service.wait('fake-2', A, 1)).status, 'running');
  const abort = new AbortController();
  const aborted = service.wait('fake-2', A, 600_000, abort.signal);
  abort.abort();
  assert.equal((await aborted).status, 'running');
});

test('killAll stops every job and resolves once all have settled', async () => {
  const { service, controller } = setup({ killGraceMs: 1 });
  const polite = fakeJob({ owner: A, settleOnCancel: true });
  const stubborn = fakeJob({ owner: A });
  const elsewhere = fakeJob({ owner: B, settleOnCancel: true });
  service.start(polite.work);
  service.start(stubborn.work);
  service.start(elsewhere.work);
  await service.killAll('shutting down', A);
  assert.deepEqual(
    service.list(A).map((record) => [record.status, record.reason]),
    [
      ['killed', 'shutting down'],
      ['killed', 'shutting down'],
    ],
  );
  assert.equal(controller.deliveries.length, 2);
  assert.equal(service.running(B).length, 1);
  await service.killAll('exit');
  assert.deepEqual(service.running(), []);
});

test('removing an owner controller kills its jobs at once, without a notice', () => {
  const context = new Context();
  const service = new LocalJobService({ context });
  const controller = recordingController();
  const unregister = service.registerController(A, controller);
  const job = fakeJob({ owner: A });
  service.start(job.work);
  unregister();
  assert.deepEqual(job.cancels, [`its owner ${A} has gone`]);
  assert.equal(service.get('fake-1', A).status, 'killed');
  assert.equal(controller.deliveries.length, 0);
  assert.throws(() => service.start(fakeJob({ owner: A }).work), { code: 'NO_CONTROLLER' });
  service.registerController(B, recordingController());
  assert.throws(() => service.registerController(B, recordingController()), /already has/);
});

test('killAndWait resolves with the killed record once the producer settles, and sends no notice', async () => {
  const { service, controller, context } = setup();
  const job = fakeJob({ owner: A, label: 'npm run watch' });
  service.start(job.work);
  const settled: JobRecord[] = [];
  context.on(jobSettled, (record) => {
    settled.push(record);
  });
  const killing = service.killAndWait('fake-1', A, { reason: 'enough' });
  assert.equal(service.get('fake-1', A).status, 'stopping');
  assert.deepEqual(job.cancels, ['enough']);
  job.finish({ status: 'killed', summary: 'killed: enough' });
  const record = await killing;
  assert.equal(record.status, 'killed');
  assert.equal(record.reason, 'enough');
  assert.deepEqual(
    settled.map((item) => item.status),
    ['killed'],
  );
  assert.equal(controller.deliveries.length, 0, 'the kill reported the end itself');
  const again = await service.killAndWait('fake-1', A);
  assert.deepEqual(again, record, 'a settled job is returned as it is');
});

test('killAndWait of a producer that ignores cancel resolves killed after the kill grace', async () => {
  const { service } = setup({ killGraceMs: 5 });
  const job = fakeJob({ owner: A });
  service.start(job.work);
  const record = await service.killAndWait('fake-1', A);
  assert.equal(record.status, 'killed');
  assert.match(record.summary ?? '', /did not stop within 5 ms/);
});

test('an aborted signal ends the wait of killAndWait with the job still stopping', async () => {
  const { service, controller } = setup();
  const job = fakeJob({ owner: A });
  service.start(job.work);
  const abort = new AbortController();
  const killing = service.killAndWait('fake-1', A, { signal: abort.signal });
  abort.abort();
  assert.equal((await killing).status, 'stopping');
  const notice = controller.next();
  job.finish();
  assert.equal((await notice).record.status, 'killed', 'with nobody waiting, the owner is told');
  await assert.rejects(
    service.killAndWait('fake-1', B),
    (error: Error & { code?: string }) => error.code === 'NOT_OWNER',
  );
});

test('peek shows the latest output, read or not, and leaves it unread for the owner', () => {
  const { service } = setup({ outputLimitBytes: 16 });
  const job = fakeJob({ owner: A });
  service.start(job.work);
  job.print('first line\n');
  assert.equal(service.peek('fake-1', A).output, 'first line\n');
  assert.equal(service.peek('fake-1', A).output, 'first line\n');
  assert.equal(service.read('fake-1', A).output, 'first line\n');
  assert.equal(service.peek('fake-1', A).output, 'first line\n', 'a read keeps what a person sees');
  job.print('second\n');
  assert.equal(service.peek('fake-1', A).output, 'rst line\nsecond\n', 'within the limit');
  assert.equal(service.read('fake-1', A).output, 'second\n');
  assert.throws(() => service.peek('fake-1', B), /belongs to another agent/);
});
