export { type BudgetParts, Budgets } from "./budgets.js";
