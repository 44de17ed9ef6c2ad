export { planOperation, type RootPlan } from './plan.js';
