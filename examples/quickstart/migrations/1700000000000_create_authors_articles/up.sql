CREATE TABLE author (
  id         serial PRIMARY KEY,
  name       text NOT NULL,
  -- the id of the user this author is, as the auth service sends it in X-Engine-User-Id
  user_id    text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE article (
  id           serial PRIMARY KEY,
  author_id    integer NOT NULL REFERENCES author (id),
  title        text NOT NULL,
  body         text NOT NULL DEFAULT '',
  published    boolean NOT NULL DEFAULT false,
  published_at timestamptz
);

CREATE INDEX article_author_id ON article (author_id);
