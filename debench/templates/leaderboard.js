(function(){
  function cellKey(row, col){
    var c = row.cells[col];
    var v = c ? c.getAttribute('data-value') : null;
    return (v === null || v === '') ? null : v;
  }
  function sortTable(table, th){
    var headRow = th.parentNode;
    var col = Array.prototype.indexOf.call(headRow.children, th);
    var numeric = th.getAttribute('data-sort') === 'num';
    var cur = th.getAttribute('aria-sort');
    var dir = cur === 'ascending' ? 'descending' : cur === 'descending' ? 'ascending' : (th.getAttribute('data-first') || 'ascending');
    Array.prototype.forEach.call(headRow.children, function(h){ h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var sign = dir === 'ascending' ? 1 : -1;
    rows.sort(function(a, b){
      var ka = cellKey(a, col), kb = cellKey(b, col);
      if (ka === null || kb === null) { return (ka === null) - (kb === null); }  // undefined values last
      var c = numeric ? (parseFloat(ka) - parseFloat(kb)) : ka.localeCompare(kb);
      return sign * c;
    });
    rows.forEach(function(r){ body.appendChild(r); });
  }
  var tables = document.querySelectorAll('table.sortable');
  Array.prototype.forEach.call(tables, function(table){
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th){
      var btn = th.querySelector('button');
      if (btn) { btn.addEventListener('click', function(){ sortTable(table, th); }); }
    });
  });
  document.documentElement.setAttribute('data-ready', '1');
})();
