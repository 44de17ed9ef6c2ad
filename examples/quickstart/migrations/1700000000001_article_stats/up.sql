-- A computed field's function: STABLE (it reads but never writes), taking the table's row.
CREATE FUNCTION author_published_count(author_row author)
RETURNS bigint
LANGUAGE sql STABLE
AS $$
  SELECT count(*) FROM article WHERE author_id = author_row.id AND published
$$;
