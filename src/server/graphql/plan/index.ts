export { constantRoot, planOperation, type RootPlan } from './plan.js';
