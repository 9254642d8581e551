// A thread of the load tests' results (results-threads.ts, served by lib/threads/pool-thread.ts): one
// test's results at a time.
import { serveTasks } from '../../../lib/threads/pool-thread.ts';
import { type ResultsInput, testResults } from './test-results.ts';

serveTasks((input: ResultsInput) => testResults(input));
