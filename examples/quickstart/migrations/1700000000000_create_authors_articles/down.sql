DROP TABLE article;
DROP TABLE author;
