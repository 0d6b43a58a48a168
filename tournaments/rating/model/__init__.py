"""The rating model in plain Python (no database): the results and the estimates that are
views of them. It sits below tournaments.models, which stores a global rating's state
(``skill``) without importing a fit."""
