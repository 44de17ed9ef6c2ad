-- Two authors and their articles: what `engine test` (tests/) starts from; `engine seed apply` loads them.
INSERT INTO author (name, user_id) VALUES ('Ann', 'u1'), ('Bob', 'u2');
INSERT INTO article (author_id, title, published) VALUES (1, 'Hello', true), (1, 'Draft by Ann', false), (2, 'Draft by Bob', false);
