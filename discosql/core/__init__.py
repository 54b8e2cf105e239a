"""The core every capability runs on: the spec of a call, its inputs, the plan (grouping and
coding decisions), the dictionaries and stages that count key cells, the result tables and
their views and charts, and where outputs go. Imports the engines and the SQL layer, never a
capability."""
